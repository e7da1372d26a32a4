/** Table types of navigation views and channel folders (listed in schema.ts's Database). */
import type { Generated } from "kysely";

/** A user's left-sidebar view settings (Zulip's NavigationView, FL 390), keyed by URL fragment. */
export interface NavigationViewTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  fragment: string;
  is_pinned: number;
  /** Null for built-in views, which take their name from the client. */
  name: string | null;
}

/** A realm's channel folders (Zulip's ChannelFolder, FL 389; `order` FL 414). */
export interface ChannelFolderTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: number | null;
  creator_id: number | null;
  is_archived: number;
  order: number;
}

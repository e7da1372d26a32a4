/** Navigation views (FL 390) and channel folders (FL 389) as the API shows them. */
import type { NavigationViewRow } from "../store/users/navigation-views.ts";
import type { ChannelFolderRow } from "../store/channels/channel-folders.ts";

/** A navigation view; `name` is null for built-in views. */
export type ApiNavigationView = { fragment: string; is_pinned: boolean; name: string | null };

/** A channel folder. */
export type ApiChannelFolder = {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: number | null;
  creator_id: number | null;
  is_archived: boolean;
  order: number;
};

/** A stored view in the API's shape. */
export function presentNavigationView(row: NavigationViewRow): ApiNavigationView {
  return { fragment: row.fragment, is_pinned: row.is_pinned === 1, name: row.name };
}

/** A stored folder in the API's shape. */
export function presentChannelFolder(row: ChannelFolderRow): ApiChannelFolder {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    rendered_description: row.rendered_description,
    date_created: row.date_created,
    creator_id: row.creator_id,
    is_archived: row.is_archived === 1,
    order: row.order,
  };
}

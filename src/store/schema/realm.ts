/** Table types of organizations and what each organization defines for all its users (listed in schema.ts's Database). */
import type { Generated } from "kysely";

/** A boolean column: 0 or 1. */
export type Flag = 0 | 1;

/** Organizations (Zulip's realms). */
export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: Flag;
  /** JSON object of settings that differ from the defaults in permissions/realm-settings.ts. */
  settings: string;
  /** The stable id the push relay knows the organization by (Zulip's Realm.uuid); set on insert. */
  uuid: string | null;
}

/** A realm's custom profile fields. */
export interface CustomProfileFieldTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  order: number;
  display_in_profile_summary: Flag;
  required: Flag;
  editable_by_user: Flag;
}

/** A realm's code playgrounds. */
export interface RealmPlaygroundTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** A realm's linkifiers, applied in `order`. */
export interface LinkifierTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: number;
}

/** A realm's custom emoji. */
export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  file_name: string;
  author_id: number | null;
  deactivated: Flag;
  is_animated: Flag;
}

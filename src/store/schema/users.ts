/** Table types of users and bots and what belongs to each of them (listed in schema.ts's Database). */
import type { Generated } from "kysely";
import type { Flag } from "./realm.ts";

/** Users and bots of every realm. */
export interface UserTable {
  id: Generated<number>;
  realm_id: number;
  delivery_email: string;
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators (Zulip's values). */
  email_address_visibility: number;
  full_name: string;
  role: number;
  is_active: Flag;
  is_bot: Flag;
  bot_type: number | null;
  bot_owner_id: number | null;
  api_key: string;
  password_hash: string | null;
  date_joined: number;
  timezone: string;
  /** "G" gravatar, "U" uploaded. */
  avatar_source: string;
  avatar_version: number;
  is_billing_admin: Flag;
  /** JSON object of personal settings that differ from the defaults. */
  settings: string;
  /** Zulip's can_create_users: with the administrator role, allows POST /users (granted by the CLI). */
  can_create_users: Generated<Flag>;
  /** The stable id the push relay knows the user by (Zulip's UserProfile.uuid); set on insert. */
  uuid: string | null;
  /** UNIX seconds of the last password login (web or API key), or null: never (migration 0035 took it from browser sessions). */
  last_login: number | null;
}

/** Outgoing-webhook services of bots. */
export interface ServiceTable {
  id: Generated<number>;
  realm_id: number;
  bot_user_id: number;
  base_url: string;
  token: string;
  /** 1 generic, 2 slack-compatible. */
  interface: number;
}

/** Users' values for custom profile fields. */
export interface CustomProfileValueTable {
  realm_id: number;
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

/** Users' statuses: text and emoji. */
export interface UserStatusTable {
  user_id: number;
  realm_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  timestamp: number;
}

/** Users' saved snippets. */
export interface SavedSnippetTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
}

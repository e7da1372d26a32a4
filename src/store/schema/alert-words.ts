/** Table types of alert words and muted users (listed in schema.ts's Database). */
import type { Generated } from "kysely";

/** A user's alert words (Zulip's AlertWord), stored as typed; matched case-insensitively. */
export interface AlertWordTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  word: string;
}

/** Users muted by other users (Zulip's MutedUser): `user_id` muted `muted_user_id`. */
export interface MutedUserTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  muted_user_id: number;
  /** UNIX seconds. */
  date_muted: number;
}

/** Table types of users' presence (Zulip's UserPresence and PresenceSequence). */
import type { Selectable } from "kysely";

/** One row per user who has ever reported presence: when last seen active, and when last connected. */
export interface UserPresenceTable {
  user_id: number;
  realm_id: number;
  /** UNIX seconds of the last "active" report; null until the first one (Zulip shows date_joined then). */
  last_active_time: number | null;
  /** UNIX seconds of the last report of any status. */
  last_connected_time: number;
  /** The realm's presence sequence number of this row's last change (clients fetch rows past theirs). */
  last_update_id: number;
}

/** Per realm, the last presence sequence number given out. */
export interface PresenceSequenceTable {
  realm_id: number;
  last_update_id: number;
}

/** A stored presence row. */
export type UserPresenceRow = Selectable<UserPresenceTable>;

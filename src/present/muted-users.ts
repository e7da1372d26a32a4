/** The muted-user objects of the register snapshot and `muted_users` events. */
import type { MutedUserRow } from "../store/users/muted-users.ts";

/** A muted user as the API shows it: the muted user's id and when they were muted. */
export type ApiMutedUser = { id: number; timestamp: number };

/** A user's mutes, as listed in the snapshot and events. */
export function presentMutedUsers(rows: ReadonlyArray<Pick<MutedUserRow, "muted_user_id" | "date_muted">>): ApiMutedUser[] {
  return rows.map((r) => ({ id: r.muted_user_id, timestamp: Number(r.date_muted) }));
}

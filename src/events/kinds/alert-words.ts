/** `alert_words` and `muted_users` events: the user's whole new list, sent only to that user. */
import type { ApiMutedUser } from "../../present/muted-users.ts";

/** The user's alert words changed. */
export type AlertWordsEvent = { type: "alert_words"; alert_words: string[] };

/** The user's muted users changed (FL 48). */
export type MutedUsersEvent = { type: "muted_users"; muted_users: ApiMutedUser[] };

/** The user's alert words, after a change. */
export function alertWordsEvent(words: string[]): AlertWordsEvent {
  return { type: "alert_words", alert_words: words };
}

/** The user's muted users, after a change. */
export function mutedUsersEvent(mutedUsers: ApiMutedUser[]): MutedUsersEvent {
  return { type: "muted_users", muted_users: mutedUsers };
}

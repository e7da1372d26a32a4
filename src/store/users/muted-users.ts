/** Muted users: who muted whom, and the muter's unread messages from a user they mute. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import { unreadForSql, type FlagMessage } from "../messages/message-flags.ts";
import { cachedRead, cachedUserRows } from "../engine/read-cache.ts";
import type { MutedUserTable } from "../schema/alert-words.ts";

/** A stored mute: `user_id` muted `muted_user_id` at `date_muted`. */
export type MutedUserRow = Selectable<MutedUserTable>;

/** The users a user has muted, in the order they were muted. */
export const listMutedUsers = cachedUserRows("users muted by a user", ["muted_users"], (db, realmId, userId): Promise<Array<Pick<MutedUserRow, "muted_user_id" | "date_muted">>> =>
  db.selectFrom("muted_users").select(["muted_user_id", "date_muted"]).where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute(),
);

/** The mute of `mutedUserId` by `userId`, if any. */
export function getMute(db: Db, realmId: number, userId: number, mutedUserId: number): Promise<MutedUserRow | undefined> {
  return db
    .selectFrom("muted_users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("muted_user_id", "=", mutedUserId)
    .executeTakeFirst();
}

/** Records a mute; false when the user had already muted that user (Zulip's IntegrityError). */
export async function insertMute(db: Db, row: Omit<MutedUserRow, "id">): Promise<boolean> {
  const inserted = await db
    .insertInto("muted_users")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "muted_user_id"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Removes a mute. */
export async function deleteMute(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("muted_users").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/**
 * Ids of the users who muted `userId` (Zulip's get_muting_users), ascending: they get that
 * user's messages already read, and typing notifications may skip them. Read on every send,
 * so kept by the read cache until muted_users is written.
 */
export const mutersOf = cachedRead(
  "muters of user",
  ["muted_users"],
  (realmId: number, userId: number) => `${realmId}:${userId}`,
  (ids: number[]) => ids.slice(),
  async (db, realmId, userId) => {
    const rows = await db.selectFrom("muted_users").select("user_id").where("muted_user_id", "=", userId).where("realm_id", "=", realmId).orderBy("user_id").execute();
    return rows.map((r) => r.user_id);
  },
);

/** The user's unread messages sent by `senderId` (any channel, subscribed or not, and direct), ascending. */
export function unreadMessagesFrom(db: Db, realmId: number, userId: number, senderId: number): Promise<FlagMessage[]> {
  return db
    .selectFrom("messages")
    .select(["id", "sender_id", "stream_id", "recipient_id", "stream_wildcard_mention"])
    .where("realm_id", "=", realmId)
    .where("sender_id", "=", senderId)
    .where(unreadForSql(userId))
    .orderBy("id")
    .execute();
}

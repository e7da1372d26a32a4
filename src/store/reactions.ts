/** Emoji reactions on messages: one row per (message, user, reaction_type, emoji_code). */
import type { Db } from "./types.ts";
import type { ReactionRow } from "./schema.ts";

/** The emoji of a reaction: its namespace, code within it, and name. */
export type Emoji = { emoji_name: string; emoji_code: string; reaction_type: string };

/** The first reaction on a message with this emoji (any user), if any. */
export function firstReactionWithEmoji(db: Db, realmId: number, messageId: number, reactionType: string, emojiCode: string): Promise<ReactionRow | undefined> {
  return db
    .selectFrom("reactions")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("message_id", "=", messageId)
    .where("reaction_type", "=", reactionType)
    .where("emoji_code", "=", emojiCode)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
}

/** One user's reaction on a message with this emoji, if any. */
export function getReaction(db: Db, realmId: number, key: { messageId: number; userId: number; reactionType: string; emojiCode: string }): Promise<ReactionRow | undefined> {
  return db
    .selectFrom("reactions")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("message_id", "=", key.messageId)
    .where("user_id", "=", key.userId)
    .where("reaction_type", "=", key.reactionType)
    .where("emoji_code", "=", key.emojiCode)
    .executeTakeFirst();
}

/** Stores a reaction and returns its row. */
export function insertReaction(db: Db, realmId: number, row: Emoji & { message_id: number; user_id: number }): Promise<ReactionRow> {
  return db.insertInto("reactions").values({ realm_id: realmId, ...row }).returningAll().executeTakeFirstOrThrow();
}

/** Deletes one reaction by id. */
export async function deleteReaction(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("reactions").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Deletes every reaction on the given messages (they are being deleted). */
export async function deleteReactionsOfMessages(db: Db, messageIds: number[]): Promise<void> {
  await db.deleteFrom("reactions").where("message_id", "in", messageIds).execute();
}

/** Reactions on the given messages, oldest first. */
export function reactionsOfMessages(db: Db, realmId: number, messageIds: number[]): Promise<ReactionRow[]> {
  if (messageIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("reactions").selectAll().where("realm_id", "=", realmId).where("message_id", "in", messageIds).orderBy("id").execute();
}

/** Emoji reactions on messages: one row per (message, user, reaction_type, emoji_code). */
import type { Db } from "../schema/types.ts";
import type { ReactionRow } from "../schema/database.ts";
import { collectChunks, eachChunk, idChunks } from "../engine/chunks.ts";

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

/**
 * Stores a reaction and returns its row; undefined when the user already has this reaction on the
 * message (a concurrent request may have stored it after the caller looked).
 */
export function insertReaction(db: Db, realmId: number, row: Emoji & { message_id: number; user_id: number }): Promise<ReactionRow | undefined> {
  return db
    .insertInto("reactions")
    .values({ realm_id: realmId, ...row })
    .onConflict((oc) => oc.columns(["message_id", "user_id", "reaction_type", "emoji_code"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Deletes one reaction by id; returns whether this call deleted it. */
export async function deleteReaction(db: Db, realmId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom("reactions").where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes every reaction on the given messages (they are being deleted). */
export async function deleteReactionsOfMessages(db: Db, messageIds: number[]): Promise<void> {
  await eachChunk(idChunks(messageIds), (chunk) => db.deleteFrom("reactions").where("message_id", "in", chunk).execute());
}

/** Reactions on the given messages, oldest first. */
export async function reactionsOfMessages(db: Db, realmId: number, messageIds: number[]): Promise<ReactionRow[]> {
  const chunks = idChunks(messageIds);
  const rows = await collectChunks(chunks, (chunk) => db.selectFrom("reactions").selectAll().where("realm_id", "=", realmId).where("message_id", "in", chunk).orderBy("id").execute());
  return chunks.length > 1 ? rows.sort((a, b) => a.id - b.id) : rows;
}

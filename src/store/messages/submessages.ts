/** Submessages: widget data (polls, to-do lists) attached to a message by its readers. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { SubmessageTable } from "../schema/database.ts";
import { collectChunks, eachChunk, idChunks } from "../engine/chunks.ts";

/** A stored submessage (widget data). */
export type SubmessageRow = Selectable<SubmessageTable>;

/** Whether a user has already attached a submessage to the message. */
export async function hasSubmessageFrom(db: Db, messageId: number, senderId: number): Promise<boolean> {
  const row = await db.selectFrom("submessages").select("id").where("message_id", "=", messageId).where("sender_id", "=", senderId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The content of the message's first `widget` submessage (which names the widget type), if any. */
export async function firstWidgetContent(db: Db, messageId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom("submessages")
    .select("content")
    .where("message_id", "=", messageId)
    .where("msg_type", "=", "widget")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return row?.content;
}

/** Stores a submessage and returns its row. */
export function insertSubmessage(db: Db, row: { message_id: number; sender_id: number; msg_type: string; content: string }): Promise<SubmessageRow> {
  return db.insertInto("submessages").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Deletes every submessage of the given messages (they are being deleted). */
export async function deleteSubmessagesOfMessages(db: Db, messageIds: number[]): Promise<void> {
  await eachChunk(idChunks(messageIds), (chunk) => db.deleteFrom("submessages").where("message_id", "in", chunk).execute());
}

/** Submessages of the given messages, oldest first. */
export async function submessagesOfMessages(db: Db, messageIds: number[]): Promise<SubmessageRow[]> {
  const chunks = idChunks(messageIds);
  const rows = await collectChunks(chunks, (chunk) => db.selectFrom("submessages").selectAll().where("message_id", "in", chunk).orderBy("id").execute());
  return chunks.length > 1 ? rows.sort((a, b) => a.id - b.id) : rows;
}

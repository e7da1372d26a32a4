/** Uploaded files (attachments) and the messages that link them. */
import { sql, type Selectable, type SqlBool } from "kysely";
import type { Db } from "../schema/types.ts";
import type { AttachmentTable } from "../schema/database.ts";
import { collectChunks, eachChunk, idChunks, rowChunks, valueChunks } from "../engine/chunks.ts";

/** A stored upload. */
export type AttachmentRow = Selectable<AttachmentTable>;

/** A linking message as GET /attachments lists it (date_sent in seconds). */
export type LinkedMessage = { id: number; date_sent: number };

/** Inserts an attachment row. */
export function insertAttachment(db: Db, row: Omit<AttachmentRow, "id">): Promise<AttachmentRow> {
  return db.insertInto("attachments").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The attachment with this id in the realm. */
export function getAttachment(db: Db, realmId: number, id: number): Promise<AttachmentRow | undefined> {
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** The attachment stored at this path_id in the realm. */
export function getAttachmentByPath(db: Db, realmId: number, pathId: string): Promise<AttachmentRow | undefined> {
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("path_id", "=", pathId).executeTakeFirst();
}

/** The realm's attachments at these path_ids. */
export async function attachmentsByPaths(db: Db, realmId: number, pathIds: readonly string[]): Promise<AttachmentRow[]> {
  return collectChunks(valueChunks(pathIds), (chunk) => db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("path_id", "in", chunk).execute());
}

/** The realm's attachments with these ids. */
export async function attachmentsByIds(db: Db, realmId: number, ids: readonly number[]): Promise<AttachmentRow[]> {
  return collectChunks(idChunks(ids), (chunk) => db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("id", "in", chunk).execute());
}

/** A user's attachments, oldest first. */
export function listOwnedAttachments(db: Db, realmId: number, ownerId: number): Promise<AttachmentRow[]> {
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("owner_id", "=", ownerId).orderBy("id").execute();
}

/** The messages linking each attachment, in id order. */
export async function linkedMessages(db: Db, attachmentIds: readonly number[]): Promise<Map<number, LinkedMessage[]>> {
  const out = new Map<number, LinkedMessage[]>(attachmentIds.map((id) => [id, []]));
  // Each attachment's rows come whole from one chunk, so each list is in id order.
  const rows = await collectChunks(idChunks(attachmentIds), (chunk) =>
    db
      .selectFrom("attachment_messages")
      .innerJoin("messages", "messages.id", "attachment_messages.message_id")
      .select(["attachment_messages.attachment_id", "messages.id", "messages.date_sent"])
      .where("attachment_messages.attachment_id", "in", chunk)
      .orderBy("messages.id")
      .execute(),
  );
  for (const r of rows) out.get(r.attachment_id)?.push({ id: r.id, date_sent: Number(r.date_sent) });
  return out;
}

/** Ids of the messages linking an attachment, newest first, at most `limit`. */
export async function linkingMessageIds(db: Db, attachmentId: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom("attachment_messages").select("message_id").where("attachment_id", "=", attachmentId).orderBy("message_id", "desc").limit(limit).execute();
  return rows.map((r) => r.message_id);
}

/** Links attachments to a message; existing links are kept. */
export async function linkAttachments(db: Db, messageId: number, attachmentIds: readonly number[]): Promise<void> {
  await eachChunk(rowChunks([...new Set(attachmentIds)].map((id) => ({ attachment_id: id, message_id: messageId }))), (rows) =>
    db
      .insertInto("attachment_messages")
      .values(rows)
      .onConflict((oc) => oc.columns(["attachment_id", "message_id"]).doNothing())
      .execute(),
  );
}

/** Removes a message's links to the given attachments. */
export async function unlinkAttachments(db: Db, messageId: number, attachmentIds: readonly number[]): Promise<void> {
  await eachChunk(idChunks(attachmentIds), (chunk) => db.deleteFrom("attachment_messages").where("message_id", "=", messageId).where("attachment_id", "in", chunk).execute());
}

/** Ids of the attachments a message links. */
export async function attachmentIdsOfMessage(db: Db, messageId: number): Promise<number[]> {
  const rows = await db.selectFrom("attachment_messages").select("attachment_id").where("message_id", "=", messageId).execute();
  return rows.map((r) => r.attachment_id);
}

/**
 * Removes the links of these messages and returns the attachments they linked that no other
 * message links any more.
 */
export async function unlinkMessages(db: Db, messageIds: readonly number[]): Promise<AttachmentRow[]> {
  const messageChunks = idChunks(messageIds);
  const linked = await collectChunks(messageChunks, (chunk) => db.selectFrom("attachment_messages").select("attachment_id").distinct().where("message_id", "in", chunk).execute());
  const ids = linked.map((r) => r.attachment_id);
  if (ids.length === 0) return [];
  await eachChunk(messageChunks, (chunk) => db.deleteFrom("attachment_messages").where("message_id", "in", chunk).execute());
  return collectChunks(idChunks(ids), (chunk) =>
    db
      .selectFrom("attachments")
      .selectAll()
      .where("id", "in", chunk)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom("attachment_messages").select("message_id").whereRef("attachment_messages.attachment_id", "=", "attachments.id"))))
      .execute(),
  );
}

/** Deletes attachments and any links to them. */
export async function deleteAttachments(db: Db, ids: readonly number[]): Promise<void> {
  const chunks = idChunks(ids);
  await eachChunk(chunks, (chunk) => db.deleteFrom("attachment_messages").where("attachment_id", "in", chunk).execute());
  await eachChunk(chunks, (chunk) => db.deleteFrom("attachments").where("id", "in", chunk).execute());
}

/** Attachments of every realm uploaded before `before` (seconds) that no message links, at most `limit`. */
export function unclaimedAttachments(db: Db, before: number, limit: number): Promise<AttachmentRow[]> {
  return db
    .selectFrom("attachments")
    .selectAll()
    .where("create_time", "<", before)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom("attachment_messages").select("message_id").whereRef("attachment_messages.attachment_id", "=", "attachments.id"))))
    // A message still to be sent that links the upload claims it too (upstream's
    // Attachment.scheduled_messages): its link must work when it goes out.
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("scheduled_messages").select("id").where("delivered", "=", 0).where(sql<SqlBool>`content like ('%/user_uploads/' || attachments.path_id || '%')`))),
    )
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** Total bytes of the realm's uploads (upload_space_used). */
export async function realmUploadBytes(db: Db, realmId: number): Promise<number> {
  const row = await db.selectFrom("attachments").select(sql<string | number | null>`sum(size)`.as("total")).where("realm_id", "=", realmId).executeTakeFirstOrThrow();
  return Number(row.total ?? 0);
}

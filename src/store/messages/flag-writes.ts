/**
 * Writes of per-user message flags. Rows are kept where a user's flags differ from the default
 * (see store/messages/message-flags.ts), and for unread received messages even when they do not: the
 * unread watermark promises such rows (store/messages/unread-watermarks.ts). A deletion that leaves a
 * received message unread without a row lowers that watermark first.
 */
import type { Db } from "../schema/types.ts";
import { defaultFlagBits, receivedIds, storedFlags, type FlagMessage } from "./message-flags.ts";
import { MESSAGE_FLAG, RECIPIENT_TYPE } from "../schema/database.ts";
import { eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";
import { lowerUnreadWatermarks } from "./unread-watermarks.ts";

/** Flags of a message a user can see without having received it (Zulip's DEFAULT_HISTORICAL_FLAGS). */
export const HISTORICAL_DEFAULT = MESSAGE_FLAG.read | MESSAGE_FLAG.historical;

/**
 * How a user stands to one message, as Zulip's UserMessage row would: `bits` are the stored
 * flags (stream wildcard mentions are derived and not included), `defaultBits` what no row means,
 * and `hasRow` whether Zulip would hold a UserMessage row (received, or a historical row).
 */
type FlagState = { bits: number; defaultBits: number; hasRow: boolean };

/** Each message's flag state for one user (by message id). */
export async function flagStates(db: Db, userId: number, messages: FlagMessage[]): Promise<Map<number, FlagState>> {
  const ids = messages.map((m) => m.id);
  const [stored, received] = await Promise.all([storedFlags(db, userId, ids), receivedIds(db, userId, messages)]);
  const out = new Map<number, FlagState>();
  for (const m of messages) {
    const defaultBits = received.has(m.id) ? defaultFlagBits(userId, m) : HISTORICAL_DEFAULT;
    const row = stored.get(m.id);
    out.set(m.id, { bits: row ?? defaultBits, defaultBits, hasRow: received.has(m.id) || row !== undefined });
  }
  return out;
}

/**
 * Stores new flag bits for one user: rows equal to a default that is read (the sender's, or
 * historical) are deleted, others upserted. An unread row stays even when it equals the default
 * (a received message without a row): the unread watermark may promise that the row exists.
 */
export async function writeFlagBits(db: Db, userId: number, changes: ReadonlyArray<{ messageId: number; bits: number; defaultBits: number }>): Promise<void> {
  const deletes = (c: { bits: number; defaultBits: number }) => c.bits === c.defaultBits && (c.defaultBits & MESSAGE_FLAG.read) !== 0;
  const toDelete = changes.filter(deletes).map((c) => c.messageId);
  // One row per message (the last change wins): an upsert may not touch a row twice.
  const toStore = new Map(changes.filter((c) => !deletes(c)).map((c) => [c.messageId, c.bits]));
  await eachChunk(idChunks(toDelete), (chunk) => db.deleteFrom("user_message_flags").where("user_id", "=", userId).where("message_id", "in", chunk).execute());
  // In key order, so two requests writing overlapping rows lock them in the same order (no deadlock).
  const rows = [...toStore].sort((a, b) => a[0] - b[0]).map(([message_id, flags]) => ({ user_id: userId, message_id, flags }));
  await eachChunk(rowChunks(rows), (values) =>
    db
      .insertInto("user_message_flags")
      .values(values)
      .onConflict((oc) => oc.columns(["user_id", "message_id"]).doUpdateSet((eb) => ({ flags: eb.ref("excluded.flags") })))
      .execute(),
  );
}

/** Stores `flags` in a user's existing row for one message. */
export async function updateFlagRow(db: Db, userId: number, messageId: number, flags: number): Promise<void> {
  await db.updateTable("user_message_flags").set({ flags }).where("user_id", "=", userId).where("message_id", "=", messageId).execute();
}

/** Removes a user's row for one message (their flags fall back to the default: unread, if they received it). */
export async function deleteFlagRow(db: Db, userId: number, messageId: number): Promise<void> {
  await lowerUnreadWatermarks(db, [userId], messageId);
  await deleteRow(db, userId, messageId);
}

function deleteRow(db: Db, userId: number, messageId: number) {
  return db.deleteFrom("user_message_flags").where("user_id", "=", userId).where("message_id", "=", messageId).execute();
}

/** Removes every user's rows for the given messages (they are being deleted). */
export async function deleteFlagRowsOfMessages(db: Db, messageIds: number[]): Promise<void> {
  await eachChunk(idChunks(messageIds), (chunk) => db.deleteFrom("user_message_flags").where("message_id", "in", chunk).execute());
}

/** Replaces rows one by one: each (user, message) row is removed, then those with non-null flags inserted anew. */
export async function replaceFlagRows(db: Db, changes: ReadonlyArray<{ user_id: number; message_id: number; flags: number | null }>): Promise<void> {
  const removed = changes.filter((c) => c.flags === null);
  if (removed.length > 0) await lowerUnreadWatermarks(db, removed.map((c) => c.user_id), removed.reduce((low, c) => Math.min(low, c.message_id), Number.POSITIVE_INFINITY));
  for (const change of changes) await deleteRow(db, change.user_id, change.message_id);
  const inserts = changes.flatMap((c) => (c.flags === null ? [] : [{ user_id: c.user_id, message_id: c.message_id, flags: c.flags }]));
  await eachChunk(rowChunks(inserts), (values) =>
    db
      .insertInto("user_message_flags")
      .values(values)
      .onConflict((oc) => oc.columns(["user_id", "message_id"]).doUpdateSet((eb) => ({ flags: eb.ref("excluded.flags") })))
      .execute(),
  );
}

/**
 * Users who hold the message as Zulip's UserMessage rows would: its sender, the users who received
 * it (covering subscription periods or the direct group) and users with a flag row for it.
 */
export async function messageHolderIds(db: Db, message: FlagMessage): Promise<Set<number>> {
  const out = new Set<number>([message.sender_id]);
  const flagged = await db.selectFrom("user_message_flags").select("user_id").where("message_id", "=", message.id).execute();
  for (const row of flagged) out.add(row.user_id);
  if (message.stream_id !== null) {
    const periods = await db
      .selectFrom("subscription_periods")
      .select("user_id")
      .where("stream_id", "=", message.stream_id)
      .where("first_message_id", "<=", message.id)
      .where((eb) => eb.or([eb("last_message_id", "is", null), eb("last_message_id", ">=", message.id)]))
      .execute();
    for (const row of periods) out.add(row.user_id);
    return out;
  }
  const members = await db
    .selectFrom("recipients")
    .innerJoin("direct_group_members", "direct_group_members.group_id", "recipients.type_id")
    .select("direct_group_members.user_id")
    .where("recipients.id", "=", message.recipient_id)
    .where("recipients.type", "=", RECIPIENT_TYPE.direct)
    .execute();
  for (const row of members) out.add(row.user_id);
  return out;
}

/**
 * Gives a user who reacts to a message they do not hold a "historical" row (read), as Zulip
 * creates a UserMessage row, so that later events about the message reach them.
 */
export async function ensureHistoricalRow(db: Db, userId: number, messageId: number): Promise<void> {
  await db
    .insertInto("user_message_flags")
    .values({ user_id: userId, message_id: messageId, flags: HISTORICAL_DEFAULT })
    .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
    .execute();
}

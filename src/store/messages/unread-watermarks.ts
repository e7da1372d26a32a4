/**
 * Unread watermarks (migration 0025). A user's watermark W promises: every message with id up to
 * W that they received, did not send and have not read holds a flag row. Their unread messages
 * are then the flag rows without `read` (a partial index finds them) and the received messages
 * above W without a row, instead of a walk through every message they ever received.
 *
 * Keeping the promise:
 * - settling (actions/messages/unread-settle.ts) writes a row (flags 0, what no row means) for
 *   each message in (W, cap] that is unread for lack of a row, then moves W to cap, holding the
 *   watermark's row locked from the start;
 * - every write that can leave a message at or below W unread without a row (deleting a flag row,
 *   store/messages/flag-writes.ts) first lowers W below it in the same transaction, so it waits for a
 *   settling under way and the settling's scan sees the row it deletes, or the other way round.
 * A subscription opens its periods above the newest message, so it brings no message below W.
 */
import { sql } from "kysely";
import type { Db, Engine } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";

// Read twice by every register (settling, then the snapshot): a named statement.
const watermarkQuery = prepared("unreadWatermark", (db, param: Placeholders<{ userId: number }>) =>
  db.selectFrom("unread_watermarks").select("message_id").where("user_id", "=", param("userId")),
);

/** The user's watermark (0 before their first settling). */
export async function unreadWatermark(db: Db, userId: number): Promise<number> {
  const [row] = await watermarkQuery(db, { userId });
  return row?.message_id ?? 0;
}

/** Makes the user's watermark row (at 0) if missing: a settling locks it, so it must be committed first. */
export async function ensureUnreadWatermark(db: Db, userId: number): Promise<void> {
  await db
    .insertInto("unread_watermarks")
    .values({ user_id: userId, message_id: 0 })
    .onConflict((oc) => oc.column("user_id").doNothing())
    .execute();
}

/** The watermark, its row locked until the transaction ends on PostgreSQL (SQLite has one writer). */
export async function lockUnreadWatermark(db: Db, engine: Engine, userId: number): Promise<number> {
  const row = await db
    .selectFrom("unread_watermarks")
    .select("message_id")
    .where("user_id", "=", userId)
    .$if(engine === "postgres", (q) => q.forUpdate())
    .executeTakeFirst();
  return row?.message_id ?? 0;
}

/** Writes the unread rows (flags 0) of settled messages, then moves the watermark up to `through`. */
export async function settleUnreadRows(db: Db, userId: number, messageIds: readonly number[], through: number): Promise<void> {
  const rows = [...messageIds].sort((a, b) => a - b).map((message_id) => ({ user_id: userId, message_id, flags: 0 }));
  await eachChunk(rowChunks(rows), (values) =>
    db
      .insertInto("user_message_flags")
      .values(values)
      .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
      .execute(),
  );
  await db.updateTable("unread_watermarks").set({ message_id: through }).where("user_id", "=", userId).where("message_id", "<", through).execute();
}

/**
 * Lowers users' watermarks below `messageId`: a message of theirs from there on may now be unread
 * without a row. Touches (and so locks) each user's row even when it is already lower.
 */
export async function lowerUnreadWatermarks(db: Db, userIds: readonly number[], messageId: number): Promise<void> {
  const below = messageId - 1;
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  await eachChunk(idChunks(ids), (chunk) =>
    db
      .updateTable("unread_watermarks")
      .set({ message_id: sql<number>`case when message_id < ${below} then message_id else ${below} end` })
      .where("user_id", "in", chunk)
      .execute(),
  );
}

/**
 * Scheduled messages: the sender's list, and the delivery worker's queries. A message is claimed
 * by setting `delivered` in the transaction that sends it, guarded by `delivered = 0`, so of two
 * processes sharing the database only one sends it (PostgreSQL makes the second UPDATE wait for
 * the first's commit and then find nothing; SQLite runs one writer at a time).
 */
import type { Insertable, Updateable } from "kysely";
import type { DeliveryType, ScheduledMessageRow, ScheduledMessageTable } from "../schema/drafts.ts";
import type { Db } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { cachedRead, copyRows } from "../engine/read-cache.ts";

/** A due message: which realm's worker context sends it. */
export type DueScheduledMessage = Pick<ScheduledMessageRow, "id" | "realm_id">;

// Asked twice by every register (scheduled messages and reminders): a named statement.
const undeliveredQuery = prepared("undeliveredScheduledMessages", (db, param: Placeholders<{ realmId: number; senderId: number; type: DeliveryType }>) =>
  db
    .selectFrom("scheduled_messages")
    .selectAll()
    .where("realm_id", "=", param("realmId"))
    .where("sender_id", "=", param("senderId"))
    .where("delivered", "=", 0)
    .where("delivery_type", "=", param("type"))
    .orderBy("scheduled_timestamp")
    .orderBy("id"),
);

/** The sender's messages (or reminders) not sent yet, failed ones included, by delivery time. */
export const listUndeliveredScheduledMessages = cachedRead(
  "undelivered scheduled messages of a sender",
  ["scheduled_messages"],
  (realmId: number, senderId: number, type: DeliveryType) => `${realmId}/${senderId}/${type}`,
  copyRows<ScheduledMessageRow>,
  (db, realmId, senderId, type) => undeliveredQuery(db, { realmId, senderId, type }),
);

/** One of the sender's own scheduled messages or reminders (another user's, or the other kind, is not found). */
export function getOwnScheduledMessage(db: Db, realmId: number, senderId: number, id: number, type: DeliveryType): Promise<ScheduledMessageRow | undefined> {
  return db
    .selectFrom("scheduled_messages")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("sender_id", "=", senderId)
    .where("id", "=", id)
    .where("delivery_type", "=", type)
    .executeTakeFirst();
}

/** Inserts a scheduled message. */
export function insertScheduledMessage(db: Db, row: Insertable<ScheduledMessageTable>): Promise<ScheduledMessageRow> {
  return db.insertInto("scheduled_messages").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Changes a message not sent yet; undefined when it was sent meanwhile. */
export function updateUndeliveredScheduledMessage(db: Db, realmId: number, id: number, patch: Updateable<ScheduledMessageTable>): Promise<ScheduledMessageRow | undefined> {
  return db.updateTable("scheduled_messages").set(patch).where("realm_id", "=", realmId).where("id", "=", id).where("delivered", "=", 0).returningAll().executeTakeFirst();
}

/** Deletes a scheduled message. */
export async function deleteScheduledMessage(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("scheduled_messages").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Messages of every realm due at `nowSeconds`, not sent and not failed, earliest first. */
export function dueScheduledMessages(db: Db, nowSeconds: number, limit: number): Promise<DueScheduledMessage[]> {
  return db
    .selectFrom("scheduled_messages")
    .select(["id", "realm_id"])
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .where("scheduled_timestamp", "<=", nowSeconds)
    .orderBy("scheduled_timestamp")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** The earliest delivery time of the messages still to send, if any. */
export async function nextScheduledTimestamp(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom("scheduled_messages")
    .select((eb) => eb.fn.min("scheduled_timestamp").as("next"))
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .executeTakeFirst();
  return row?.next ?? null;
}

/** Marks a due message delivered if nobody has sent or failed it yet; undefined when another did. */
export function claimScheduledMessage(db: Db, id: number, nowSeconds: number): Promise<ScheduledMessageRow | undefined> {
  return db
    .updateTable("scheduled_messages")
    .set({ delivered: 1 })
    .where("id", "=", id)
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .where("scheduled_timestamp", "<=", nowSeconds)
    .returningAll()
    .executeTakeFirst();
}

/** Records which message a scheduled message became. */
export async function setDeliveredMessageId(db: Db, id: number, messageId: number): Promise<void> {
  await db.updateTable("scheduled_messages").set({ delivered_message_id: messageId }).where("id", "=", id).execute();
}

/** Marks a message that could not be sent failed, unless it was sent or failed meanwhile. */
export function markScheduledMessageFailed(db: Db, id: number, failureMessage: string): Promise<ScheduledMessageRow | undefined> {
  return db
    .updateTable("scheduled_messages")
    .set({ failed: 1, failure_message: failureMessage })
    .where("id", "=", id)
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .returningAll()
    .executeTakeFirst();
}

/** SQLite's busy and locked results, PostgreSQL's serialization failure and deadlock. */
const RETRYABLE_CODES = new Set(["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_BUSY_RECOVERY", "SQLITE_LOCKED", "40001", "40P01"]);

/**
 * Whether a store error only means that another process's write got in the way, so the same
 * work may succeed later (a message is then tried again, not failed).
 */
export function isRetryableStoreError(err: unknown): boolean {
  if (err === null || typeof err !== "object" || !("code" in err)) return false;
  return typeof err.code === "string" && RETRYABLE_CODES.has(err.code);
}

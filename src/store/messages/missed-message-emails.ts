/**
 * Missed-message emails (Zulip's ScheduledMessageNotificationEmail): the job a send writes for
 * the recipients it could email (email_notify_jobs, a job table), the rows of each user's batch
 * waiting out its period (missed_message_emails), and the reads that build an email: a topic's
 * messages just before the missed ones (Zulip's get_context_for_message).
 */
import { sql, type Insertable } from "kysely";
import { eachChunk, rowChunks } from "../engine/chunks.ts";
import { jobQueue } from "../engine/job-tables.ts";
import { MESSAGE_COLUMNS, type MessageRow } from "../schema/database.ts";
import type { EmailNotifyJobRow, EmailNotifyJobTable, MissedMessageEmailRow, NewMissedMessageEmail } from "../schema/email-notifications.ts";
import type { Db } from "../schema/types.ts";

/** The email_notify_jobs queue (its due and next-due reads, and rescheduling after a failure). */
export const emailNotifyJobs = jobQueue<EmailNotifyJobRow>("email_notify_jobs");

/** Writes a send's email-notification job. */
export async function insertEmailNotifyJob(db: Db, job: Insertable<EmailNotifyJobTable>): Promise<void> {
  await db.insertInto("email_notify_jobs").values(job).execute();
}

/**
 * Takes a job: deletes it and returns it (undefined: another process took it). In the
 * transaction that decides it, this is the claim, as takeMissedMessageBatch is for a batch.
 */
export function takeEmailNotifyJob(db: Db, id: number): Promise<EmailNotifyJobRow | undefined> {
  return db.deleteFrom("email_notify_jobs").where("id", "=", id).returningAll().executeTakeFirst();
}

/** Adds messages to users' batches; a user already waiting on a message keeps their row. */
export async function insertMissedMessageEmails(db: Db, rows: readonly NewMissedMessageEmail[]): Promise<void> {
  await eachChunk(rowChunks(rows), (chunk) =>
    db
      .insertInto("missed_message_emails")
      .values(chunk)
      .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
      .execute(),
  );
}

/** A user whose batch is due (its earliest row), with when. */
export type DueBatch = { realm_id: number; user_id: number; due_at_ms: number };

/**
 * Users whose batch is due at `nowMs` (their earliest row is), earliest first, at most `limit`:
 * read down the due index, a few rows past `limit` per user at most, never the whole table.
 */
export async function dueMissedMessageBatches(db: Db, nowMs: number, limit: number): Promise<DueBatch[]> {
  const out = new Map<number, DueBatch>();
  let after: { due: number; id: number } | null = null;
  const page = Math.max(limit * 4, 16);
  while (out.size < limit) {
    let query = db.selectFrom("missed_message_emails").select(["id", "realm_id", "user_id", "due_at_ms"]).where("due_at_ms", "<=", nowMs);
    if (after !== null) {
      const { due, id } = after;
      query = query.where((eb) => eb.or([eb("due_at_ms", ">", due), eb.and([eb("due_at_ms", "=", due), eb("id", ">", id)])]));
    }
    const rows = await query.orderBy("due_at_ms").orderBy("id").limit(page).execute();
    for (const r of rows) if (out.size < limit && !out.has(r.user_id)) out.set(r.user_id, { realm_id: r.realm_id, user_id: r.user_id, due_at_ms: Number(r.due_at_ms) });
    if (rows.length < page) break;
    const last = rows[rows.length - 1];
    after = { due: Number(last.due_at_ms), id: last.id };
  }
  return [...out.values()];
}

/** When the earliest batch comes due, or null when none waits. */
export async function nextMissedMessageBatchDue(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom("missed_message_emails")
    .select((eb) => eb.fn.min("due_at_ms").as("next"))
    .executeTakeFirst();
  const next = row?.next as number | string | null | undefined;
  return next === null || next === undefined ? null : Number(next);
}

/**
 * Takes a user's whole batch: deletes its rows and returns them. In the transaction that queues
 * its emails, this is the claim: of two processes, the second finds the rows gone (PostgreSQL
 * makes it wait for the first's commit; SQLite has one writer).
 */
export function takeMissedMessageBatch(db: Db, userId: number): Promise<MissedMessageEmailRow[]> {
  return db.deleteFrom("missed_message_emails").where("user_id", "=", userId).returningAll().execute();
}

/** How many rows wait in every batch (for benchmarks and tests). */
export async function countMissedMessageEmails(db: Db): Promise<number> {
  const row = await db.selectFrom("missed_message_emails").select((eb) => eb.fn.countAll().as("n")).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Up to `limit` messages of a channel topic (compared case-insensitively) just before `beforeId`
 * and sent after `sinceSeconds`, newest first (Zulip's get_context_for_message).
 */
export function topicMessagesBefore(db: Db, realmId: number, streamId: number, topic: string, beforeId: number, sinceSeconds: number, limit: number): Promise<MessageRow[]> {
  return db
    .selectFrom("messages")
    .select(MESSAGE_COLUMNS)
    .where("realm_id", "=", realmId)
    .where("stream_id", "=", streamId)
    .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
    .where("id", "<", beforeId)
    .where("date_sent", ">", sinceSeconds)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/**
 * How many active human accounts of active organizations on this server use this delivery
 * address (Zulip's include_realm_name_in_missedmessage_emails_subject counts them).
 */
export async function activeAccountsWithEmail(db: Db, deliveryEmail: string): Promise<number> {
  const row = await db
    .selectFrom("users")
    .innerJoin("realms", "realms.id", "users.realm_id")
    .select((eb) => eb.fn.countAll().as("n"))
    .where(sql<string>`lower(users.delivery_email)`, "=", deliveryEmail.toLowerCase())
    .where("users.is_active", "=", 1)
    .where("users.is_bot", "=", 0)
    .where("realms.deactivated", "=", 0)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

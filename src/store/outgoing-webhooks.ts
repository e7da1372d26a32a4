/**
 * Outgoing-webhook delivery jobs: written with the message that triggers them, taken by the
 * worker (actions/bots/outgoing-webhook-worker.ts) by moving `due_at_ms` forward in an UPDATE
 * guarded by the due time it read, so of two processes sharing the database only one takes a job.
 */
import type { Insertable } from "kysely";
import type { OutgoingWebhookJobRow, OutgoingWebhookJobTable } from "./schema-webhooks.ts";
import type { Db } from "./types.ts";

/** Writes the jobs of one message. */
export async function insertOutgoingWebhookJobs(db: Db, rows: Array<Insertable<OutgoingWebhookJobTable>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto("outgoing_webhook_jobs").values(rows).execute();
}

/** Jobs of every realm due at `nowMs`, earliest first. */
export function dueOutgoingWebhookJobs(db: Db, nowMs: number, limit: number): Promise<OutgoingWebhookJobRow[]> {
  return db.selectFrom("outgoing_webhook_jobs").selectAll().where("due_at_ms", "<=", nowMs).orderBy("due_at_ms").orderBy("id").limit(limit).execute();
}

/** The earliest due time of any job, if there is one. */
export async function nextOutgoingWebhookDue(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom("outgoing_webhook_jobs")
    .select((eb) => eb.fn.min("due_at_ms").as("next"))
    .executeTakeFirst();
  return row?.next ?? null;
}

/** Takes a job still due as read (`dueAtMs`) until `leaseUntilMs`; undefined when another process took it. */
export function claimOutgoingWebhookJob(db: Db, id: number, dueAtMs: number, leaseUntilMs: number): Promise<OutgoingWebhookJobRow | undefined> {
  return db.updateTable("outgoing_webhook_jobs").set({ due_at_ms: leaseUntilMs }).where("id", "=", id).where("due_at_ms", "=", dueAtMs).returningAll().executeTakeFirst();
}

/** Records a failed attempt and when to try again. */
export async function rescheduleOutgoingWebhookJob(db: Db, id: number, failedTries: number, dueAtMs: number): Promise<void> {
  await db.updateTable("outgoing_webhook_jobs").set({ failed_tries: failedTries, due_at_ms: dueAtMs }).where("id", "=", id).execute();
}

/** Drops a handled job. */
export async function deleteOutgoingWebhookJob(db: Db, id: number): Promise<void> {
  await db.deleteFrom("outgoing_webhook_jobs").where("id", "=", id).execute();
}

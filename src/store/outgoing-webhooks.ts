/**
 * Outgoing-webhook delivery jobs: written with the message that triggers them, taken by the
 * worker (actions/bots/outgoing-webhook-worker.ts) as job-tables.ts takes any job.
 */
import type { Insertable } from "kysely";
import type { OutgoingWebhookJobRow, OutgoingWebhookJobTable } from "./schema-webhooks.ts";
import { claimJob, deleteJob, dueJobs, nextJobDue, rescheduleJob } from "./job-tables.ts";
import type { Db } from "./types.ts";

const TABLE = "outgoing_webhook_jobs";

/** Writes the jobs of one message. */
export async function insertOutgoingWebhookJobs(db: Db, rows: Array<Insertable<OutgoingWebhookJobTable>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto("outgoing_webhook_jobs").values(rows).execute();
}

/** Jobs of every realm due at `nowMs`, earliest first. */
export async function dueOutgoingWebhookJobs(db: Db, nowMs: number, limit: number): Promise<OutgoingWebhookJobRow[]> {
  return (await dueJobs(db, TABLE, nowMs, limit)) as OutgoingWebhookJobRow[];
}

/** The earliest due time of any job, if there is one. */
export function nextOutgoingWebhookDue(db: Db): Promise<number | null> {
  return nextJobDue(db, TABLE);
}

/** Takes a job still due as read until `leaseUntilMs`: the job as taken, or undefined when another process took it. */
export async function claimOutgoingWebhookJob(db: Db, job: OutgoingWebhookJobRow, leaseUntilMs: number): Promise<OutgoingWebhookJobRow | undefined> {
  return (await claimJob(db, TABLE, job, leaseUntilMs)) ? { ...job, due_at_ms: leaseUntilMs } : undefined;
}

/** Records a failed attempt and when to try again. */
export function rescheduleOutgoingWebhookJob(db: Db, id: number, failedTries: number, dueAtMs: number): Promise<void> {
  return rescheduleJob(db, TABLE, id, failedTries, dueAtMs);
}

/** Drops a handled job. */
export function deleteOutgoingWebhookJob(db: Db, id: number): Promise<void> {
  return deleteJob(db, TABLE, id);
}

/**
 * Outgoing-webhook delivery jobs: written with the message that triggers them, taken by the
 * worker (actions/bots/outgoing-webhook-worker.ts) as job-tables.ts takes any job.
 */
import type { Insertable } from "kysely";
import type { OutgoingWebhookJobRow, OutgoingWebhookJobTable } from "../schema/webhooks.ts";
import { jobQueue } from "../engine/job-tables.ts";
import type { Db } from "../schema/types.ts";

const TABLE = "outgoing_webhook_jobs";

/** The deliveries waiting to be made (see job-tables.ts). */
export const outgoingWebhookJobs = jobQueue<OutgoingWebhookJobRow>(TABLE);

/** Writes the jobs of one message. */
export async function insertOutgoingWebhookJobs(db: Db, rows: Array<Insertable<OutgoingWebhookJobTable>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto("outgoing_webhook_jobs").values(rows).execute();
}


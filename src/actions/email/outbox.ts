/**
 * Outgoing email (Zulip's send_email queue): a message is written as a job in the caller's
 * transaction and sent by the email worker (worker.ts) after commit, off the request path, so a
 * slow or failing SMTP server never fails or delays the request that caused the email.
 */
import { systemClock } from "../../clock.ts";
import { insertEmailJob } from "../../store/users/invites.ts";
import type { Db } from "../../store/schema/types.ts";
import type { DoEnv } from "../context.ts";
import { JobSignal } from "../job-loop.ts";

/** Fired once a transaction that queued email commits: this process's email worker then sends it at once. */
export const emailJobsQueued = new JobSignal();

/** One email: its plain-text body, and an HTML body sent beside it when given (multipart/alternative). */
export type Email = { to: string; subject: string; body: string; html?: string };

/**
 * Queues an email in `tx`, due at once (real time, as every job table), and returns its job's
 * id; given the transaction's `emit`, wakes this process's worker once it commits. Without SMTP_URL nothing is mailed: returns null and writes nothing.
 */
export async function doQueueEmail(tx: Db, env: Pick<DoEnv, "realm" | "config"> & Partial<Pick<DoEnv, "emit">>, email: Email): Promise<number | null> {
  if (!env.config.smtp) return null;
  // With the transaction's emit, this process's worker is woken at its commit; else it looks within 30 s.
  env.emit?.afterCommit(emailJobsQueued.fire);
  return insertEmailJob(tx, { realm_id: env.realm.id, to_address: email.to, subject: email.subject, body: email.body, html_body: email.html ?? null, due_at_ms: systemClock.nowMs() });
}

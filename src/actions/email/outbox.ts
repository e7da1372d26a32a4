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

/** One email: its plain text, and an HTML part beside it when given. */
export type Email = { to: string; subject: string; body: string; html?: string };

/** Fired after a commit that queued email in a worker's transaction: the email worker looks at once. */
export const emailQueued = new JobSignal();

/**
 * Queues an email in `tx`, due at once (real time, as every job table). Without SMTP_URL
 * nothing is mailed: returns false and writes nothing.
 */
export async function doQueueEmail(tx: Db, env: Pick<DoEnv, "realm" | "config">, email: Email): Promise<boolean> {
  if (!env.config.smtp) return false;
  await insertEmailJob(tx, { realm_id: env.realm.id, to_address: email.to, subject: email.subject, body: email.body, html_body: email.html ?? null, due_at_ms: systemClock.nowMs() });
  return true;
}

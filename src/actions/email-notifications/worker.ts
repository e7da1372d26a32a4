/**
 * The email-notification worker (Zulip's missedmessage_emails worker and digest cron), in-process,
 * with SMTP_URL only, on actions/job-loop.ts:
 * - the jobs a send writes (email_notify_jobs) are decided at once (decide.ts), each taken
 *   (deleted) in the transaction that decides it, so processes sharing the database never both
 *   decide one, and one whose process dies mid-way is decided again;
 * - each user's batch is sent once its earliest message is due (compose.ts), the batch's rows
 *   taken in the transaction that queues its emails, so only one process sends it;
 * - digests (digest.ts) on the organizations' digest weekday.
 * Everything waits in the database, so a restart loses nothing: what came due meanwhile goes
 * out at the next start.
 */
import { systemClock } from "../../clock.ts";
import { dueMissedMessageBatches, emailNotifyJobs, nextMissedMessageBatchDue, takeEmailNotifyJob, takeMissedMessageBatch, type DueBatch } from "../../store/messages/missed-message-emails.ts";
import { getRealm } from "../../store/realm/realms.ts";
import type { EmailNotifyJobRow } from "../../store/schema/email-notifications.ts";
import { actionCtx, withTransaction, type ActionCtx, type ServerDeps } from "../context.ts";
import { emailQueued } from "../email/outbox.ts";
import { JobLoop, type JobLoopLimits } from "../job-loop.ts";
import type { QueueHolders } from "../push/away.ts";
import { doSendMissedMessageEmails } from "./compose.ts";
import { doDecideMessageEmails } from "./decide.ts";
import { startDigests, type DigestTimer } from "./digest-timer.ts";
import { emailNotifyJobQueued } from "./signal.ts";

/** Retries of a job whose decision failed (the database refused), before it is dropped. */
const MAX_DECISION_RETRIES = 3;
const RETRY_BASE_MS = 1_000;
/**
 * Decisions and batches at once: each is one transaction holding a database connection (shared
 * with requests on PostgreSQL), and a sender's latency matters more than an email's.
 */
const LIMITS: JobLoopLimits = { maxInFlight: 1, maxSleepMs: 30_000, retryMs: 1_000, wakeDelayMs: 20 };

/** A running worker; stop() it before closing the store. */
export type EmailNotificationWorker = { stop(): Promise<void> };

/** The context of a realm's work (no caller), or null when the realm is gone. */
async function realmCtx(deps: ServerDeps, realmId: number): Promise<ActionCtx | null> {
  const realm = await getRealm(deps.store.reader, realmId);
  return realm ? actionCtx(deps, { realm, actor: null, client: "Internal" }) : null;
}

/** Takes one send's job and decides its emails, in one transaction; a failure is tried again, then dropped. */
async function decide(deps: ServerDeps, holders: QueueHolders, job: EmailNotifyJobRow, wakeBatches: () => void): Promise<void> {
  const ctx = await realmCtx(deps, job.realm_id);
  if (!ctx) return;
  try {
    const added = await withTransaction(ctx, async (tx) => {
      const taken = await takeEmailNotifyJob(tx, job.id);
      return taken ? doDecideMessageEmails(tx, { holders, clock: deps.clock }, ctx.realm, taken, systemClock.nowMs()) : 0;
    });
    if (added > 0) wakeBatches();
  } catch (err) {
    const tries = job.failed_tries + 1;
    const log = { err, email_notify_job_id: job.id, message_id: job.message_id, tries };
    if (tries <= MAX_DECISION_RETRIES) {
      deps.log.warn(log, "missed-message emails not decided; will try again");
      await withTransaction(ctx, (tx) => emailNotifyJobs.reschedule(tx, job.id, tries, systemClock.nowMs() + RETRY_BASE_MS * 2 ** (tries - 1)));
    } else {
      deps.log.error(log, "missed-message emails not decided: given up");
      await withTransaction(ctx, (tx) => emailNotifyJobs.remove(tx, job.id));
    }
  }
}

/** Sends one user's due batch; a batch that cannot be composed is logged and dropped, as upstream does. */
async function sendBatch(deps: ServerDeps, batch: DueBatch): Promise<void> {
  const ctx = await realmCtx(deps, batch.realm_id);
  if (!ctx) return;
  try {
    const queued = await withTransaction(ctx, (tx) => doSendMissedMessageEmails(tx, ctx, batch.user_id));
    if (queued > 0) emailQueued.fire();
  } catch (err) {
    deps.log.error({ err, user_id: batch.user_id }, "missed-message emails could not be composed: batch dropped");
    await withTransaction(ctx, (tx) => takeMissedMessageBatch(tx, batch.user_id));
  }
}

/** Starts deciding and sending missed-message emails, and digests; null without SMTP_URL. */
export function startEmailNotificationWorker(deps: ServerDeps, holders: QueueHolders): EmailNotificationWorker | null {
  if (deps.config.smtp === null) return null;
  // A job, or a user's batch, is taken by one pass of this process at a time; another process
  // may still race for it, and the transaction that deletes its rows wins (see the store).
  const deciding = new Set<number>();
  const sending = new Set<number>();
  const batches = new JobLoop<DueBatch, DueBatch>(
    {
      name: "missed-message emails",
      due: (nowMs, limit) => dueMissedMessageBatches(deps.store.reader, nowMs, limit),
      nextDueMs: () => nextMissedMessageBatchDue(deps.store.reader),
      claim: async (batch) => {
        if (sending.has(batch.user_id)) return null;
        sending.add(batch.user_id);
        return batch;
      },
      run: async (batch) => {
        try {
          await sendBatch(deps, batch);
        } finally {
          sending.delete(batch.user_id);
        }
      },
    },
    deps.log,
    LIMITS,
  );
  const jobs = new JobLoop<EmailNotifyJobRow, EmailNotifyJobRow>(
    {
      name: "email notification decisions",
      due: (nowMs, limit) => emailNotifyJobs.due(deps.store.reader, nowMs, limit),
      nextDueMs: () => emailNotifyJobs.nextDue(deps.store.reader),
      claim: async (job) => {
        if (deciding.has(job.id)) return null;
        deciding.add(job.id);
        return job;
      },
      run: async (job) => {
        try {
          await decide(deps, holders, job, () => batches.wakeSoon());
        } finally {
          deciding.delete(job.id);
        }
      },
    },
    deps.log,
    LIMITS,
  );
  const unlisten = emailNotifyJobQueued.listen(() => jobs.wakeSoon());
  const digests: DigestTimer = startDigests(deps);
  void jobs.wake();
  void batches.wake();
  return {
    stop: async () => {
      unlisten();
      await digests.stop();
      await jobs.stop();
      await batches.stop();
    },
  };
}

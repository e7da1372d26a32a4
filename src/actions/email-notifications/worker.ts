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
import { JobLoop, type JobLoopLimits, type JobSource } from "../job-loop.ts";
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

/**
 * A job loop over rows that a run takes by deleting them in its transaction (store/messages/
 * missed-message-emails.ts): each item is run by one pass of this process at a time (`keyOf`
 * names it); another process may still race for it, and the transaction that deletes the rows wins.
 */
function takenByDeletion<T>(deps: ServerDeps, name: string, reads: Pick<JobSource<T, T>, "due" | "nextDueMs">, keyOf: (item: T) => number, run: (item: T) => Promise<void>): JobLoop<T, T> {
  const running = new Set<number>();
  return new JobLoop<T, T>(
    {
      name,
      ...reads,
      claim: async (item) => {
        if (running.has(keyOf(item))) return null;
        running.add(keyOf(item));
        return item;
      },
      run: async (item) => {
        try {
          await run(item);
        } finally {
          running.delete(keyOf(item));
        }
      },
    },
    deps.log,
    LIMITS,
  );
}

/** Starts deciding and sending missed-message emails, and digests; null without SMTP_URL. */
export function startEmailNotificationWorker(deps: ServerDeps, holders: QueueHolders): EmailNotificationWorker | null {
  if (deps.config.smtp === null) return null;
  const reader = deps.store.reader;
  const batches = takenByDeletion<DueBatch>(
    deps,
    "missed-message emails",
    { due: (nowMs, limit) => dueMissedMessageBatches(reader, nowMs, limit), nextDueMs: () => nextMissedMessageBatchDue(reader) },
    (batch) => batch.user_id,
    (batch) => sendBatch(deps, batch),
  );
  const jobs = takenByDeletion<EmailNotifyJobRow>(
    deps,
    "email notification decisions",
    { due: (nowMs, limit) => emailNotifyJobs.due(reader, nowMs, limit), nextDueMs: () => emailNotifyJobs.nextDue(reader) },
    (job) => job.id,
    (job) => decide(deps, holders, job, () => batches.wakeSoon()),
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

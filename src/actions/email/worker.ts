/**
 * The email worker: sends the jobs outbox.ts queues through the SMTP server of SMTP_URL
 * (nodemailer), in-process, off every request's path, on actions/job-loop.ts. A job is taken by
 * a lease past the send's timeouts, so processes sharing the database never both send it, and a
 * job whose process died comes due again. A failed send (refused, dropped, unreachable) is tried
 * again MAX_EMAIL_RETRIES times with a doubling wait (EMAIL_RETRY_BASE_MS), then logged and
 * dropped. Log lines name the job and the SMTP server's answer, never the URL (it holds the
 * password).
 */
import type { Transporter } from "nodemailer";
import { systemClock } from "../../clock.ts";
import type { SmtpConfig } from "../../config.ts";
import { emailJobs } from "../../store/users/invites.ts";
import type { EmailJobRow } from "../../store/schema/invites.ts";
import { getRealm } from "../../store/realm/realms.ts";
import { actionCtx, withTransaction, type ServerDeps } from "../context.ts";
import { JobLoop } from "../job-loop.ts";
import { emailQueued } from "./outbox.ts";

/** Retries after the first attempt, before a message is given up on. */
export const MAX_EMAIL_RETRIES = 3;
/** How long connecting, the server's greeting and each later step of a send may take. */
const CONNECTION_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 30_000;
/** A taken job comes due again this long after it was taken (its process died mid-send). */
const LEASE_MS = CONNECTION_TIMEOUT_MS + SOCKET_TIMEOUT_MS + 60_000;
/** Sends in flight at once. */
const MAX_IN_FLIGHT = 4;
/** The longest sleep: an email queued by another process is seen within it (invitations also wake the worker through their invites_changed event). */
const MAX_SLEEP_MS = 30_000;
const RETRY_MS = 1_000;
const WAKE_DELAY_MS = 20;

/** A running worker; stop() it before closing the store. */
export type EmailWorker = { stop(): Promise<void> };

/** What a failed send's log line may say: the server's reply and error code, with any secret of the URL blanked. */
function failureReason(err: unknown, smtp: SmtpConfig): Record<string, unknown> {
  const e = (err ?? {}) as { message?: unknown; code?: unknown; responseCode?: unknown };
  let message = String(e.message ?? err);
  const url = new URL(smtp.url);
  for (const secret of [url.password, decodeURIComponent(url.password), url.username && Buffer.from(`\0${decodeURIComponent(url.username)}\0${decodeURIComponent(url.password)}`).toString("base64")]) {
    if (secret) message = message.replaceAll(secret, "[redacted]");
  }
  return { reason: message, code: typeof e.code === "string" ? e.code : undefined, response_code: typeof e.responseCode === "number" ? e.responseCode : undefined };
}

/** `send`, or a rejection once `stop` aborts (shutdown does not wait out a slow SMTP server; the job is sent again later). */
function untilStopped<T>(send: Promise<T>, stop: AbortSignal): Promise<T> {
  if (stop.aborted) return Promise.reject(new Error("stopping"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("stopping"));
    stop.addEventListener("abort", onAbort, { once: true });
    send.then(resolve, reject).finally(() => stop.removeEventListener("abort", onAbort));
  });
}

/** Sends one job, then deletes it, or schedules the next try, or gives up on it (logged). */
async function run(deps: ServerDeps, smtp: SmtpConfig, transport: () => Promise<Transporter>, job: EmailJobRow, stop: AbortSignal): Promise<void> {
  const realm = await getRealm(deps.store.reader, job.realm_id);
  if (!realm) return;
  const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
  try {
    await untilStopped((await transport()).sendMail({ from: smtp.from, to: job.to_address, subject: job.subject, text: job.body, html: job.html_body ?? undefined }), stop);
  } catch (err) {
    if (stop.aborted) {
      await withTransaction(ctx, (tx) => emailJobs.reschedule(tx, job.id, job.failed_tries, systemClock.nowMs()));
      return;
    }
    const tries = job.failed_tries + 1;
    if (tries <= MAX_EMAIL_RETRIES) {
      deps.log.info({ email_job_id: job.id, tries, ...failureReason(err, smtp) }, "email not sent; will try again");
      const waitMs = deps.config.emailRetryBaseMs * 2 ** (tries - 1);
      await withTransaction(ctx, (tx) => emailJobs.reschedule(tx, job.id, tries, systemClock.nowMs() + waitMs));
      return;
    }
    deps.log.warn({ email_job_id: job.id, tries, ...failureReason(err, smtp) }, "email not sent: maximum retries exceeded, giving up");
  }
  await withTransaction(ctx, (tx) => emailJobs.remove(tx, job.id));
}

/** Starts sending queued email (those left from before a restart at once); null without SMTP_URL. */
export function startEmailWorker(deps: ServerDeps): EmailWorker | null {
  const smtp = deps.config.smtp;
  if (!smtp) return null;
  // nodemailer is loaded with the first email to send, not at every start.
  let opened: Promise<Transporter> | null = null;
  const transport = () =>
    (opened ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url: smtp.url, connectionTimeout: CONNECTION_TIMEOUT_MS, greetingTimeout: CONNECTION_TIMEOUT_MS, socketTimeout: SOCKET_TIMEOUT_MS }),
    ));
  const loop = new JobLoop<EmailJobRow, EmailJobRow>(
    {
      name: "email",
      due: (nowMs, limit) => emailJobs.due(deps.store.reader, nowMs, limit),
      nextDueMs: () => emailJobs.nextDue(deps.store.reader),
      claim: async (job) => {
        const realm = await getRealm(deps.store.reader, job.realm_id);
        if (!realm) return null;
        const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
        return (await withTransaction(ctx, (tx) => emailJobs.claim(tx, job, systemClock.nowMs() + LEASE_MS))) ?? null;
      },
      run: (job, stop) => run(deps, smtp, transport, job, stop),
    },
    deps.log,
    { maxInFlight: MAX_IN_FLIGHT, maxSleepMs: MAX_SLEEP_MS, retryMs: RETRY_MS, wakeDelayMs: WAKE_DELAY_MS },
  );
  deps.bus.subscribe((delivery) => {
    if (delivery.event.type === "invites_changed") loop.wakeSoon();
  });
  const unlisten = emailQueued.listen(() => loop.wakeSoon());
  void loop.wake();
  return {
    stop: async () => {
      unlisten();
      await loop.stop();
      if (opened) (await opened).close();
    },
  };
}

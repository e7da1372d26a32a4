/**
 * The push relay's queue (Zulip queues these on its push worker): token registrations and
 * removals (tokens.ts), E2EE registrations (devices.ts), the "message" jobs a send writes, and
 * notifications and removals (remotes/push/notify and remotes/push/e2ee/notify, JSON). They are
 * sent off the request path, in order of due time. A "message" job is decided here
 * (message-notify.ts queues its notify calls in the same transaction) and its calls are made at
 * once, held by a lease rather than claimed one by one. Few decisions and relay calls run at a
 * time (MAX_DECISIONS, MAX_CALLS): the worker shares the event loop, and the database pool, with
 * requests, and a sender's latency matters more than a notification's. A network error or a 5xx is tried again after
 * PUSH_RELAY_RETRY_BASE_MS, doubling, up to MAX_RELAY_RETRIES times (upstream retries; its exact
 * policy is not documented, so this bound is ours); a refusal (4xx) is logged for the
 * administrators and dropped, as upstream logs it. After a notify call, the phones the relay
 * names as gone are forgotten. Jobs survive restarts.
 */
import { systemClock } from "../../clock.ts";
import { getRealm } from "../../store/realm/realms.ts";
import { pushDeviceEvent } from "../../events/kinds/push.ts";
import { deletePushDevicesByRelayIds, deletePushDeviceTokens, deletePushRelayJobs, pushRelayJobs, settlePushDevice } from "../../store/push/push.ts";
import { PUSH_TOKEN_KIND } from "../../store/schema/push.ts";
import type { Db } from "../../store/schema/types.ts";
import type { PushRelayJobRow } from "../../store/schema/push.ts";
import { actionCtx, withTransaction, type ActionCtx, type Emit, type ServerDeps } from "../context.ts";
import { JobLoop } from "../job-loop.ts";
import type { QueueHolders } from "./away.ts";
import { doNotifyMessage } from "./message-notify.ts";
import { callRelay, type RelayOutcome } from "./relay-client.ts";
import { onRelayCallQueued } from "./relay-signal.ts";
import { queueRegistrationsOfStoredTokens } from "./tokens.ts";

/** Retries after the first attempt before a call is given up (about 85 minutes at the default base of 10 s). */
export const MAX_RELAY_RETRIES = 9;
const MAX_IN_FLIGHT = 16;
const MAX_SLEEP_MS = 30_000;
const RETRY_MS = 1_000;
const WAKE_DELAY_MS = 20;
/** A taken call comes due again this long after its timeout (its process died). */
const LEASE_MARGIN_MS = 60_000;

/** A running worker; stop() it before closing the store. */
export type PushRelayWorker = { stop(): Promise<void> };

/** Registers the worker's wake with whatever says work may be waiting; returns the unregistration. */
export type RelayWakes = (wake: () => void) => () => void;

/**
 * The worker's parts: the server's, who holds an open event queue, and its wakes. On its own
 * thread (push-thread.ts) the last two are answered by the thread that holds the queues.
 */
export type PushRelayWorkerDeps = ServerDeps & { usersWithMessageQueues: QueueHolders; wakes: RelayWakes };

type Taken = { job: PushRelayJobRow; ctx: ActionCtx };

async function claim(deps: PushRelayWorkerDeps, job: PushRelayJobRow): Promise<Taken | null> {
  const realm = await getRealm(deps.store.reader, job.realm_id);
  if (!realm) return null;
  const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
  const leaseUntil = systemClock.nowMs() + deps.config.pushRelayTimeoutSeconds * 1000 + LEASE_MARGIN_MS;
  const taken = await withTransaction(ctx, (tx) => pushRelayJobs.claim(tx, job, leaseUntil));
  return taken ? { job: taken, ctx } : null;
}

/** Calls whose body is JSON (the rest are forms). */
const JSON_CALLS: ReadonlySet<string> = new Set(["notify", "e2ee/notify"]);

/** Relay refusals of an E2EE registration that mean the server's setup is wrong (upstream logs them for the admins and retries). */
const ADMIN_CODES = new Set(["MISSING_REMOTE_REALM", "UNAUTHORIZED", "INVALID_ZULIP_SERVER", "PUSH_NOTIFICATIONS_DISALLOWED"]);

/**
 * Zulip's handle_register_push_device_to_bouncer outcome: the relay's device id makes the
 * registration active; its refusal (INVALID_BOUNCER_PUBLIC_KEY, BAD_REQUEST for an unreadable
 * registration, REQUEST_EXPIRED, any other code) makes it failed with that code. Either way the
 * user's clients hear of it, and the call is done.
 */
async function doSettleRegistration(tx: Db, emit: Emit, job: PushRelayJobRow, pushAccountId: string, outcome: RelayOutcome): Promise<void> {
  await pushRelayJobs.remove(tx, job.id);
  if (job.user_id === null) return;
  if (outcome.kind === "ok" && (typeof outcome.body.device_id === "number" || typeof outcome.body.device_id === "string")) {
    if (await settlePushDevice(tx, job.user_id, pushAccountId, { deviceId: String(outcome.body.device_id) })) emit(pushDeviceEvent(pushAccountId, "active"), [job.user_id]);
    return;
  }
  const code = outcome.kind === "refused" && outcome.code !== null ? outcome.code : "BAD_REQUEST";
  if (await settlePushDevice(tx, job.user_id, pushAccountId, { errorCode: code })) emit(pushDeviceEvent(pushAccountId, "failed", code), [job.user_id]);
}

/** After a notify call: forget the phones the relay says are gone (uninstalled apps, expired tokens). */
async function doForgetGonePhones(tx: Db, job: PushRelayJobRow, body: Record<string, unknown>): Promise<void> {
  if (job.call === "e2ee/notify") {
    const gone = Array.isArray(body.delete_device_ids) ? body.delete_device_ids.map(String) : [];
    if (gone.length > 0) await deletePushDevicesByRelayIds(tx, job.realm_id, gone);
    return;
  }
  const deleted = (body.deleted_devices ?? {}) as { android_devices?: unknown; apple_devices?: unknown };
  const tokens = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  if (job.user_id === null) return;
  await deletePushDeviceTokens(tx, job.user_id, PUSH_TOKEN_KIND.fcm, tokens(deleted.android_devices));
  await deletePushDeviceTokens(tx, job.user_id, PUSH_TOKEN_KIND.apns, tokens(deleted.apple_devices).map((t) => t.toLowerCase()));
}

/** A job that failed to run or to get through: tried again later, or given up after MAX_RELAY_RETRIES. */
async function retryLater(deps: PushRelayWorkerDeps, { job, ctx }: Taken, stop: AbortSignal, log: Record<string, unknown>): Promise<void> {
  const tries = job.failed_tries + 1;
  if (stop.aborted) {
    await withTransaction(ctx, (tx) => pushRelayJobs.reschedule(tx, job.id, job.failed_tries, systemClock.nowMs()));
    return;
  }
  if (tries <= MAX_RELAY_RETRIES) {
    deps.log.warn({ ...log, tries }, "push relay call failed; will retry");
    await withTransaction(ctx, (tx) => pushRelayJobs.reschedule(tx, job.id, tries, systemClock.nowMs() + deps.config.pushRelayRetryBaseMs * 2 ** (tries - 1)));
    return;
  }
  deps.log.error(log, "push relay call given up after retries");
  await withTransaction(ctx, (tx) => pushRelayJobs.remove(tx, job.id));
}

/** At most this many calls to the relay at once, across the worker. */
const MAX_CALLS = 2;
/**
 * At most this many messages' notifications decided at once: each decision is one transaction
 * holding a database connection (PostgreSQL's pool is shared with requests).
 */
const MAX_DECISIONS = 1;

type WorkerLanes = { calls: Lanes; decisions: Lanes };

/** A bound on concurrent work: `run` waits for a free lane. */
class Lanes {
  private waiting: Array<() => void> = [];
  constructor(private free: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/**
 * Calls this worker queued and holds (their due time is its lease): made through the lanes, then
 * settled in one transaction. Calls not made (the worker is stopping) come due at once for the
 * next process; failed ones are tried again as any queued call is.
 */
async function runHeldCalls(deps: PushRelayWorkerDeps, ctx: ActionCtx, jobs: PushRelayJobRow[], lanes: WorkerLanes, stop: AbortSignal): Promise<void> {
  const relay = deps.config.pushRelay;
  if (relay === null || jobs.length === 0) return;
  const outcomes = await Promise.all(
    jobs.map((job) =>
      lanes.calls.run(async () => (stop.aborted ? null : callRelay(relay, `push/${job.call}`, { jsonText: job.fields }, deps.config.pushRelayTimeoutSeconds, stop))),
    ),
  );
  const nowMs = systemClock.nowMs();
  await withTransaction(ctx, async (tx) => {
    const done: number[] = [];
    for (const [i, job] of jobs.entries()) {
      const outcome = outcomes[i];
      if (outcome === null || (outcome.kind === "retry" && stop.aborted)) {
        await pushRelayJobs.reschedule(tx, job.id, job.failed_tries, nowMs);
      } else if (outcome.kind === "retry") {
        deps.log.warn({ job_id: job.id, call: job.call, user_id: job.user_id, outcome, tries: 1 }, "push relay call failed; will retry");
        await pushRelayJobs.reschedule(tx, job.id, 1, nowMs + deps.config.pushRelayRetryBaseMs);
      } else {
        if (outcome.kind === "ok") await doForgetGonePhones(tx, job, outcome.body);
        else deps.log.error({ job_id: job.id, call: job.call, user_id: job.user_id, status: outcome.status, code: outcome.code, msg: outcome.msg }, "push relay refused a call");
        done.push(job.id);
      }
    }
    await deletePushRelayJobs(tx, done);
  });
}

/**
 * A "message" job: decide who is notified, queue their calls and drop the job, in one
 * transaction; then make those calls at once, holding them by a lease (no other look at the queue).
 */
async function notifyMessage(deps: PushRelayWorkerDeps, taken: Taken, stop: AbortSignal, lanes: WorkerLanes, wake: () => void): Promise<void> {
  const { job, ctx } = taken;
  let held: PushRelayJobRow[];
  try {
    held = await lanes.decisions.run(() =>
      withTransaction(ctx, async (tx) => {
        const nowMs = systemClock.nowMs();
        const time = { nowMs, heldUntilMs: nowMs + deps.config.pushRelayTimeoutSeconds * 1000 + LEASE_MARGIN_MS };
        const calls = await doNotifyMessage(tx, deps, ctx.realm, job.fields, time);
        await pushRelayJobs.remove(tx, job.id);
        return calls;
      }),
    );
  } catch (err) {
    await retryLater(deps, taken, stop, { job_id: job.id, call: job.call, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  await runHeldCalls(deps, ctx, held, lanes, stop);
  // Calls that failed are queued for later: the loop learns their due time.
  wake();
}

/** Makes one call and settles its job. */
async function run(deps: PushRelayWorkerDeps, taken: Taken, stop: AbortSignal, lanes: WorkerLanes, wake: () => void): Promise<void> {
  const { job, ctx } = taken;
  const relay = deps.config.pushRelay;
  if (relay === null) {
    // The relay was unconfigured since: nothing can be sent; keep the job for when it is back.
    await withTransaction(ctx, (tx) => pushRelayJobs.reschedule(tx, job.id, job.failed_tries, systemClock.nowMs() + MAX_SLEEP_MS * 20));
    return;
  }
  if (job.call === "message") return notifyMessage(deps, taken, stop, lanes, wake);
  const fields = JSON.parse(job.fields) as Record<string, string>;
  const body = JSON_CALLS.has(job.call) ? { jsonText: job.fields } : { form: fields };
  const outcome = await lanes.calls.run(() => callRelay(relay, `push/${job.call}`, body, deps.config.pushRelayTimeoutSeconds, stop));
  const log = { job_id: job.id, call: job.call, user_id: job.user_id ?? fields.user_id };
  // Upstream retries these like a network error (they need an administrator, not a new registration).
  const retryable = outcome.kind === "retry" || (job.call === "e2ee/register" && outcome.kind === "refused" && ADMIN_CODES.has(outcome.code ?? ""));
  if (retryable) return retryLater(deps, taken, stop, { ...log, outcome });
  if (job.call === "e2ee/register") {
    await withTransaction(ctx, (tx, emit) => doSettleRegistration(tx, emit, job, fields.push_account_id, outcome));
    return;
  }
  if (outcome.kind === "refused") {
    // Upstream: the relay's "Token does not exist" on unregister is no problem; anything else needs an administrator.
    const level = job.call === "unregister" && outcome.status === 400 ? "info" : "error";
    deps.log[level]({ ...log, status: outcome.status, code: outcome.code, msg: outcome.msg }, "push relay refused a call");
  }
  await withTransaction(ctx, async (tx) => {
    if (outcome.kind === "ok" && JSON_CALLS.has(job.call)) await doForgetGonePhones(tx, job, outcome.body);
    await pushRelayJobs.remove(tx, job.id);
  });
}

/**
 * The wakes of a worker in the process that commits: a relay call or "message" job queued here
 * (relay-signal.ts, fired once the transaction that queued it has committed).
 */
export const localRelayWakes: RelayWakes = onRelayCallQueued;

/** Starts sending queued relay calls: those left from before at once, new ones when woken. */
export function startPushRelayWorker(deps: PushRelayWorkerDeps): PushRelayWorker {
  const lanes: WorkerLanes = { calls: new Lanes(MAX_CALLS), decisions: new Lanes(MAX_DECISIONS) };
  const loop = new JobLoop<PushRelayJobRow, Taken>(
    {
      name: "push relay",
      due: (nowMs, limit) => pushRelayJobs.due(deps.store.reader, nowMs, limit),
      nextDueMs: () => pushRelayJobs.nextDue(deps.store.reader),
      claim: (job) => claim(deps, job),
      run: (taken, stop) => run(deps, taken, stop, lanes, () => loop.wakeSoon()),
    },
    deps.log,
    { maxInFlight: MAX_IN_FLIGHT, maxSleepMs: MAX_SLEEP_MS, retryMs: RETRY_MS, wakeDelayMs: WAKE_DELAY_MS },
  );
  let unsubscribe = () => {};
  let stopping = false;
  // Stored tokens the relay has not been given are queued first (tokens.ts), so that everything
  // this worker sends comes after them, and its wakes are heard from then on.
  const started = (async () => {
    try {
      const queued = await queueRegistrationsOfStoredTokens(deps, systemClock.nowMs());
      if (queued > 0) deps.log.info({ tokens: queued }, "queued the registration of stored push tokens with the relay");
    } catch (err) {
      deps.log.error({ err }, "could not queue the registration of stored push tokens");
    }
    if (stopping) return;
    unsubscribe = deps.wakes(() => loop.wakeSoon());
    void loop.wake();
  })();
  return {
    stop: async () => {
      stopping = true;
      await started;
      unsubscribe();
      return loop.stop();
    },
  };
}

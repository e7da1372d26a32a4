/**
 * The delivery of scheduled messages (Zulip's deliver_scheduled_messages and
 * try_deliver_one_scheduled_message), in-process: a timer on the server's clock wakes at the next
 * delivery time (at most MAX_SLEEP_MS later, so a changed wall clock is noticed), and a
 * `scheduled_messages` add or update on the bus (from this process, or others through Redis)
 * wakes it at once. At start it first sends whatever came due while the server was down.
 *
 * Each message is claimed and sent in one transaction (store/messages/scheduled-messages.ts), so processes
 * sharing the database never send one twice, and a crash mid-send leaves it to send again. A
 * message is checked again as its sender at delivery (permissions may have changed); one that
 * cannot be sent is marked failed and, as Zulip does, its sender gets an update event and a
 * direct message from the Notification Bot, unless the sender or the organization is deactivated.
 * Reminders (delivery type "remind", reminders.ts) go the same way but are sent by the Notification
 * Bot to their owner, with no late cutoff and no failure notice, as upstream's send_reminder.
 */
import { nowSeconds, type TimerHandle } from "../../clock.ts";
import { scheduledMessageRemoveEvent, scheduledMessageUpdateEvent } from "../../events/kinds/drafts.ts";
import { reminderRemoveEvent } from "../../events/kinds/reminders.ts";
import { JsonableError, RealmDeactivatedError, UserDeactivatedError } from "../../errors.ts";
import { getRealm } from "../../store/realm/realms.ts";
import { DELIVERY_TYPE, type ScheduledMessageRow } from "../../store/schema/drafts.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import {
  claimScheduledMessage,
  dueScheduledMessages,
  isRetryableStoreError,
  markScheduledMessageFailed,
  nextScheduledTimestamp,
  setDeliveredMessageId,
  type DueScheduledMessage,
} from "../../store/messages/scheduled-messages.ts";
import type { Db } from "../../store/schema/types.ts";
import { getUser } from "../../store/users/users.ts";
import { actionCtx, doEnv, withTransaction, type ActionCtx, type DoEnv, type ServerDeps } from "../context.ts";
import { doSendDirectNotice, notificationBot } from "./notification-bot.ts";
import { reminderContent } from "./reminders.ts";
import { presentScheduled, storedAddressee } from "./scheduled.ts";
import { checkMessage, doSendMessage } from "./send.ts";

/** The longest sleep: a changed clock or another process's new message is seen within it. */
const MAX_SLEEP_MS = 60_000;
/** After a pass that could not finish (the database refused), try again this much later. */
const RETRY_MS = 10_000;
/** Passes in a row that may find a message due yet send nothing before the worker backs off. */
const MAX_IDLE_REPASSES = 3;
/** Due messages read per query. */
const DUE_BATCH = 100;

/** A running worker; stop() it before closing the store. */
export type ScheduledMessageWorker = { stop(): Promise<void> };

/** The context the worker acts in for one realm: no caller, the "Internal" client. */
function realmCtx(deps: ServerDeps, realm: RealmRow): ActionCtx {
  return actionCtx(deps, { realm, actor: null, client: "Internal" });
}

/** Zulip's datetime_to_global_time: a `<time:...>` every reader sees in their own zone. */
function globalTime(seconds: number): string {
  return `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
}

/** Zulip's send_failed_scheduled_message_notification, posted by the Notification Bot inside `tx`. */
async function doSendFailureNotice(tx: Db, env: DoEnv, sender: UserRow, row: ScheduledMessageRow): Promise<void> {
  const content = [
    `The message you scheduled for ${globalTime(row.scheduled_timestamp)} was not sent because of the following error:`,
    `> ${row.failure_message ?? ""}`,
    "[View scheduled messages](#scheduled)",
  ].join("\n\n");
  await doSendDirectNotice(tx, env, sender, content);
}

/**
 * Zulip's send_reminder: the Notification Bot sends the owner the reminder, its quote made afresh
 * when the owner can still see the message (else as it was scheduled). No late cutoff applies.
 */
async function doSendReminder(tx: Db, env: DoEnv, owner: UserRow, row: ScheduledMessageRow): Promise<void> {
  let content = row.content;
  if (row.reminder_target_message_id !== null) {
    try {
      content = await reminderContent(doEnv(env, env.emit, owner, row.sending_client), tx, row.reminder_target_message_id, row.reminder_note ?? "");
    } catch (err) {
      if (!(err instanceof JsonableError)) throw err;
    }
  }
  const botCtx = doEnv(env, env.emit, await notificationBot(env, tx), "Internal");
  const request = await checkMessage(botCtx, tx, { addressee: { type: "private", to: [owner] }, content, systemBot: true });
  const sent = await doSendMessage(tx, botCtx, request);
  await setDeliveredMessageId(tx, row.id, sent.id);
  env.emit(reminderRemoveEvent(row.id), [owner.id]);
}

/** Claims a due message and sends it as its sender in the caller's transaction (false: not claimable); throws why it cannot. */
async function sendDue(deps: ServerDeps, tx: Db, env: DoEnv, id: number): Promise<boolean> {
  const now = nowSeconds(deps.clock);
  const row = await claimScheduledMessage(tx, id, now);
  if (!row) return false; // sent, failed, edited or deleted meanwhile
  deps.log.info({ scheduled_message_id: row.id, scheduled_timestamp: row.scheduled_timestamp, sender_id: row.sender_id }, "sending scheduled message");
  // The checks of an authenticated request, since the state may have changed since scheduling.
  if (env.realm.deactivated === 1) throw new RealmDeactivatedError();
  const sender = await getUser(tx, env.realm.id, row.sender_id);
  if (!sender || sender.is_active === 0) throw new UserDeactivatedError();
  if (row.delivery_type === DELIVERY_TYPE.remind) {
    await doSendReminder(tx, env, sender, row);
    return true;
  }
  if (now > row.scheduled_timestamp + deps.config.scheduledLateCutoffSeconds) {
    throw new JsonableError("Message could not be sent at the scheduled time.");
  }
  const senderCtx = doEnv(env, env.emit, sender, row.sending_client);
  const request = await checkMessage(senderCtx, tx, { addressee: await storedAddressee(tx, row), content: row.content, readBySender: row.read_by_sender === 1 });
  const sent = await doSendMessage(tx, senderCtx, request);
  await setDeliveredMessageId(tx, row.id, sent.id);
  env.emit(scheduledMessageRemoveEvent(row.id), [sender.id]);
  return true;
}

/** Marks a message that could not be sent failed and tells its sender (Zulip's failure branch). */
async function recordFailure(deps: ServerDeps, ctx: ActionCtx, id: number, err: unknown): Promise<void> {
  const expected = err instanceof JsonableError;
  if (expected) deps.log.info({ scheduled_message_id: id, reason: err.message }, "scheduled message failed");
  else deps.log.error({ err, scheduled_message_id: id }, "unexpected error sending scheduled message");
  await withTransaction(ctx, async (tx, emit) => {
    const row = await markScheduledMessageFailed(tx, id, expected ? err.message : "Internal server error");
    // Reminders have no failure notice (upstream: "their own notification system").
    if (!row || row.delivery_type === DELIVERY_TYPE.remind || err instanceof RealmDeactivatedError || err instanceof UserDeactivatedError) return;
    const sender = await getUser(tx, ctx.realm.id, row.sender_id);
    if (!sender) return;
    emit(scheduledMessageUpdateEvent(await presentScheduled(tx, row)), [sender.id]);
    await doSendFailureNotice(tx, doEnv(ctx, emit), sender, row);
  });
}

/** What became of a due message: sent or failed here, taken by another process, or neither (an error). */
type Outcome = "handled" | "taken" | "error";

/** Sends one due message or records why it could not be. */
async function deliverOne(deps: ServerDeps, due: DueScheduledMessage): Promise<Outcome> {
  try {
    const realm = await getRealm(deps.store.reader, due.realm_id);
    if (!realm) return "error";
    const ctx = realmCtx(deps, realm);
    try {
      return (await withTransaction(ctx, (tx, emit) => sendDue(deps, tx, doEnv(ctx, emit), due.id))) ? "handled" : "taken";
    } catch (err) {
      // Another process's write got in the way: try again later rather than fail the message.
      if (isRetryableStoreError(err)) throw err;
      await recordFailure(deps, ctx, due.id, err);
      return "handled";
    }
  } catch (err) {
    deps.log.error({ err, scheduled_message_id: due.id }, "could not deliver or fail a scheduled message");
    return "error";
  }
}

/** The timer loop: one pass at a time; a wake during a pass runs another after it. */
class Worker {
  private timer: TimerHandle | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: ServerDeps) {}

  /** Delivers what is due now, then sleeps until the next delivery time. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.timer?.cancel();
    this.timer = null;
    this.running = this.passes().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.running;
  }

  private async passes(): Promise<void> {
    let idlePasses = 0;
    for (;;) {
      this.again = false;
      const { sleepMs, handled } = await this.pass();
      if (this.stopped) return;
      idlePasses = handled > 0 ? 0 : idlePasses + 1;
      // Something is due already (it came due during the pass): go again at once, unless passes
      // keep finding it without sending it (another process mid-send), which must not spin.
      const dueNow = sleepMs === 0 && idlePasses < MAX_IDLE_REPASSES;
      if (this.again || dueNow) continue;
      this.timer = this.deps.clock.setTimer(sleepMs === 0 ? RETRY_MS : sleepMs, () => {
        this.timer = null;
        void this.wake();
      });
      return;
    }
  }

  /** Sends every due message; returns how long to sleep (0: something is due now) and how many it sent or failed. */
  private async pass(): Promise<{ sleepMs: number; handled: number }> {
    const { store, clock, log } = this.deps;
    let handled = 0;
    try {
      for (;;) {
        const due = await dueScheduledMessages(store.reader, nowSeconds(clock), DUE_BATCH);
        for (const message of due) {
          if (this.stopped) return { sleepMs: MAX_SLEEP_MS, handled };
          const outcome = await deliverOne(this.deps, message);
          if (outcome === "error") return { sleepMs: RETRY_MS, handled };
          if (outcome === "handled") handled++;
        }
        if (due.length < DUE_BATCH) break;
      }
      const next = await nextScheduledTimestamp(store.reader);
      const sleepMs = next === null ? MAX_SLEEP_MS : Math.min(Math.max(next * 1000 - clock.nowMs(), 0), MAX_SLEEP_MS);
      return { sleepMs, handled };
    } catch (err) {
      log.error({ err }, "scheduled message delivery pass failed");
      return { sleepMs: RETRY_MS, handled };
    }
  }
}

/**
 * Starts delivering scheduled messages: first, before returning, everything already due (sent
 * while the server was down); then each at its time. Returns the handle to stop it.
 */
export async function startScheduledMessageWorker(deps: ServerDeps): Promise<ScheduledMessageWorker> {
  const worker = new Worker(deps);
  deps.bus.subscribe((delivery) => {
    const { event } = delivery;
    if ((event.type === "scheduled_messages" || event.type === "reminders") && event.op !== "remove") void worker.wake();
  });
  await worker.wake();
  return { stop: () => worker.stop() };
}

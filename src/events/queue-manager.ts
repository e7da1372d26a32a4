/**
 * Holds this process's event queues and hands each published delivery to the right ones.
 * Queue ids start with this process's id (PROCESS_ID, the port by default: `9991:…`), so a
 * front proxy can route GET /events to the process that holds the queue.
 */
import crypto from "node:crypto";
import { nowSeconds, type Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { QueueOptions } from "./queue-options.ts";
import { adaptForQueue } from "./adapters.ts";
import { expiredQueues, scheduleSweeps, sweepIntervalMs } from "./gc.ts";
import { heartbeatDelayMs, heartbeatEvent, scheduleHeartbeat } from "./heartbeat.ts";
import { LongPolls } from "./long-poll.ts";
import type { PendingEvents } from "./pending-events.ts";
import { EventQueue, type QueueSnapshot } from "./queue.ts";
import type { ApiEvent, Delivery } from "./types.ts";

/** Zulip's ceiling on a client-requested queue lifespan (queue_lifespan_secs): one week. */
const MAX_QUEUE_LIFESPAN_SECONDS = 7 * 24 * 3600;

/** Whether the queue takes message events (all events, or "message" among its event_types). */
function takesMessages(queue: EventQueue): boolean {
  const types = queue.options.event_types;
  return types === null || types.includes("message");
}

/** Appends the event if the queue's client asked for it; returns whether it did. */
function pushIfAccepted(queue: EventQueue, event: ApiEvent): boolean {
  if (!queue.accepts(event)) return false;
  queue.push(event);
  return true;
}

/** What a new queue is for. `lifespanSeconds` 0 or absent means the configured idle timeout. */
type NewQueue = { realmId: number; userId: number; options: QueueOptions; lifespanSeconds?: number };

/** This process's event queues: creates, finds, feeds, polls and expires them. */
export class QueueManager {
  /** Prefix of every queue id made here. */
  readonly processId: string;
  /** When this process started (UNIX seconds): the register snapshot's server_generation. */
  readonly generation: number;
  private queues = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  /** The queues that take every public channel's messages (all_public_streams). */
  private allPublicStreams = new Set<EventQueue>();
  private polls = new LongPolls();
  private sweeps: { stop(): void };
  /** Set by close(): polls are answered at once rather than waited on, so the server can stop. */
  private closing = false;
  /** Told when a user starts or stops holding a queue that takes message events here (events/process-registry.ts). */
  onHolderChange: ((userId: number, holds: boolean) => void) | null = null;
  /** With `answerAfterTurn`: the queues whose polls this turn's deliveries woke, answered at its end. */
  private woken: Set<string> | null = null;
  private readonly answerAfterTurn: boolean;

  /**
   * `answerAfterTurn` (processes sharing a bus): a delivery queues its events at once, but the
   * polls it wakes are answered together once the turn's work is done (setImmediate), after the
   * bus has handed the turn's deliveries to the other processes (events/redis-bus.ts schedules
   * that first). They then answer their polls while this process answers its own, rather than
   * after it.
   */
  constructor(
    readonly clock: Clock,
    readonly config: Config,
    opts: { processId?: string; answerAfterTurn?: boolean } = {},
  ) {
    this.answerAfterTurn = opts.answerAfterTurn ?? false;
    this.generation = nowSeconds(clock);
    this.processId = opts.processId ?? config.processId ?? (config.port > 0 ? String(config.port) : crypto.randomBytes(4).toString("hex"));
    this.sweeps = scheduleSweeps(clock, sweepIntervalMs(config.queueIdleSeconds * 1000), () => this.collectIdle());
  }

  /** Makes an empty queue for a user. */
  create(spec: NewQueue): EventQueue {
    const lifespan = spec.lifespanSeconds ? Math.min(spec.lifespanSeconds, MAX_QUEUE_LIFESPAN_SECONDS) : this.config.queueIdleSeconds;
    const queue = new EventQueue({
      id: `${this.processId}:${crypto.randomBytes(8).toString("hex")}`,
      realmId: spec.realmId,
      userId: spec.userId,
      options: spec.options,
      lifespanMs: lifespan * 1000,
      nowMs: this.clock.nowMs(),
    });
    this.add(queue);
    return queue;
  }

  /** Every queue as plain data, for saving at shutdown (events/persist.ts). */
  snapshots(): QueueSnapshot[] {
    return [...this.queues.values()].map((queue) => queue.snapshot());
  }

  /** Takes back saved queues, except those idle past their lifespan by now; returns those taken. */
  restore(saved: QueueSnapshot[]): EventQueue[] {
    const now = this.clock.nowMs();
    const restored: EventQueue[] = [];
    for (const snapshot of saved) {
      const queue = EventQueue.restore(snapshot);
      if (queue.isExpired(now) || this.queues.has(queue.id)) continue;
      this.add(queue);
      restored.push(queue);
    }
    return restored;
  }

  /** The queue with this id if it exists and belongs to the user (another's is as good as none). */
  find(queueId: string, userId: number): EventQueue | undefined {
    const queue = this.queues.get(queueId);
    return queue && queue.userId === userId ? queue : undefined;
  }

  /**
   * Whether the user has a queue here that takes message events (Zulip's receiver_is_off_zulip,
   * negated): a user without one is away, whatever their presence says. Queues of other
   * processes are not seen here (push-thread.ts asks events/process-registry.ts about them).
   */
  hasMessageQueue(userId: number): boolean {
    for (const queue of this.byUser.get(userId) ?? []) if (takesMessages(queue)) return true;
    return false;
  }

  /** Every user with a queue here that takes message events. */
  messageQueueHolders(): number[] {
    return [...this.byUser.keys()].filter((userId) => this.hasMessageQueue(userId));
  }

  /** Of these users, those with a queue here that takes message events (see hasMessageQueue). */
  usersWithMessageQueues(userIds: Iterable<number>): Set<number> {
    const out = new Set<number>();
    for (const id of userIds) if (this.hasMessageQueue(id)) out.add(id);
    return out;
  }

  /** Drops a queue; a poll waiting on it is released. */
  delete(queue: EventQueue): void {
    if (!this.queues.delete(queue.id)) return;
    const mine = this.byUser.get(queue.userId);
    mine?.delete(queue);
    if (mine?.size === 0) this.byUser.delete(queue.userId);
    this.allPublicStreams.delete(queue);
    this.polls.wake(queue.id);
    if (takesMessages(queue) && !this.hasMessageQueue(queue.userId)) this.onHolderChange?.(queue.userId, false);
  }

  /**
   * Appends a delivery's event to every queue of its target users that accepts it, and to the
   * all_public_streams queues when the delivery is for them, each queue once.
   */
  deliver(delivery: Delivery): void {
    // The user ids are distinct (see Delivery), so each queue is reached once.
    for (const userId of delivery.userIds) {
      const mine = this.byUser.get(userId);
      if (mine !== undefined) for (const queue of mine) this.deliverTo(queue, delivery);
    }
    if (delivery.allPublicStreamsQueues && this.allPublicStreams.size > 0) {
      const reached = new Set(delivery.userIds);
      for (const queue of this.allPublicStreams) if (!reached.has(queue.userId)) this.deliverTo(queue, delivery);
    }
  }

  /** Appends what the queue receives of the delivery's event (adapted, and if accepted), waking its poll. */
  private deliverTo(queue: EventQueue, delivery: Delivery): void {
    if (queue.realmId !== delivery.realmId) return;
    // Adapt first: a message event's narrow (is:unread, ...) looks at the queue user's own flags.
    const adapted = adaptForQueue(delivery.event, queue.options, queue);
    if (adapted === null) return;
    let pushed = false;
    if (Array.isArray(adapted)) for (const event of adapted) pushed = pushIfAccepted(queue, event) || pushed;
    else pushed = pushIfAccepted(queue, adapted);
    if (pushed) this.wakeForDelivery(queue.id);
  }

  /** Wakes the queue's poll now, or with `answerAfterTurn` once the turn's deliveries are done. */
  private wakeForDelivery(queueId: string): void {
    if (!this.answerAfterTurn) return this.polls.wake(queueId);
    if (this.woken === null) {
      this.woken = new Set();
      setImmediate(() => this.answerWoken());
    }
    this.woken.add(queueId);
  }

  private answerWoken(): void {
    const woken = this.woken ?? [];
    this.woken = null;
    for (const queueId of woken) this.polls.wake(queueId);
  }

  /**
   * Hands `answer` the queue's pending events: at once, or, unless `dontBlock`, when an event
   * arrives or a heartbeat is due if the queue is empty (null: the queue was deleted while
   * waiting). `answer` runs inside whatever wakes the poll (a delivery, a heartbeat, shutdown),
   * so it must not throw.
   */
  nextEvents(queue: EventQueue, dontBlock: boolean, answer: (events: PendingEvents | null) => void): void {
    const now = this.clock.nowMs();
    queue.touch(now);
    if (queue.isEmpty() && !dontBlock && !this.closing) {
      const delay = heartbeatDelayMs(queue.lastServedMs, now, this.config.heartbeatSeconds * 1000);
      if (delay > 0) {
        this.polls.wait(
          queue.id,
          () => scheduleHeartbeat(this.clock, delay, () => this.push(queue, heartbeatEvent())),
          () => answer(this.queues.has(queue.id) ? this.serve(queue) : null),
        );
        return;
      }
      this.push(queue, heartbeatEvent());
    }
    answer(this.serve(queue));
  }

  /** Drops every idle queue; returns how many. */
  collectIdle(): number {
    const expired = expiredQueues(this.queues.values(), this.clock.nowMs(), (id) => this.polls.isWaiting(id));
    for (const queue of expired) this.delete(queue);
    return expired.length;
  }

  /** How many queues this process holds. */
  get size(): number {
    return this.queues.size;
  }

  /**
   * For shutdown: stops timers and answers every waiting poll with what its queue holds (an
   * empty list if nothing), as later polls will be; the client polls again, after the restart.
   */
  close(): void {
    this.closing = true;
    this.sweeps.stop();
    this.polls.wakeAll();
  }

  private add(queue: EventQueue): void {
    if (takesMessages(queue) && !this.hasMessageQueue(queue.userId)) this.onHolderChange?.(queue.userId, true);
    this.queues.set(queue.id, queue);
    const mine = this.byUser.get(queue.userId) ?? new Set();
    mine.add(queue);
    this.byUser.set(queue.userId, mine);
    if (queue.options.all_public_streams) this.allPublicStreams.add(queue);
  }

  private push(queue: EventQueue, event: ApiEvent): void {
    queue.push(event);
    this.polls.wake(queue.id);
  }

  /** The queue's pending events, handed to its client now (a woken poll's queue counts as used from this moment). */
  private serve(queue: EventQueue): PendingEvents {
    queue.markServed(this.clock.nowMs());
    return queue.pending();
  }
}

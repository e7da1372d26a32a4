/**
 * One client's event queue: the events not yet acknowledged, with increasing ids, the options
 * the client registered with, and the times GC and heartbeats look at.
 */
import type { QueueOptions } from "./queue-options.ts";
import { eventMatchesNarrow } from "./narrow.ts";
import { PendingEvents } from "./pending-events.ts";
import type { ApiEvent, QueuedEvent } from "./types.ts";

/** What creating a queue needs. */
type QueueSpec = { id: string; realmId: number; userId: number; options: QueueOptions; lifespanMs: number; nowMs: number };

/**
 * Everything a queue holds, as plain data: what a graceful shutdown saves (events/persist.ts)
 * and the next start restores. Times are the clock's milliseconds.
 */
export type QueueSnapshot = {
  id: string;
  realmId: number;
  userId: number;
  options: QueueOptions;
  lifespanMs: number;
  lastTouchedMs: number;
  lastServedMs: number;
  nextId: number;
  newestPrunedId: number;
  events: QueuedEvent[];
};

/** The outcome of acknowledging `last_event_id`. */
type AckResult = "ok" | "already_pruned" | "not_in_queue";

/** An event queue held in this process's memory. */
export class EventQueue {
  readonly id: string;
  readonly realmId: number;
  readonly userId: number;
  readonly options: QueueOptions;
  /** Idle time after which the queue is collected. */
  readonly lifespanMs: number;
  /** Last time a client registered, polled or was answered. */
  lastTouchedMs: number;
  /** Last time the client was handed the queue's contents (or the queue was made). */
  lastServedMs: number;
  /**
   * The pending events, oldest first: the event objects are shared with the other queues that
   * got them (never copied only to add an id). Their ids are consecutive and end at nextId - 1.
   */
  private events: ApiEvent[] = [];
  private nextId = 0;
  /** Id of the newest event dropped by an acknowledgement; -1 before any. */
  private newestPrunedId = -1;

  constructor(spec: QueueSpec) {
    this.id = spec.id;
    this.realmId = spec.realmId;
    this.userId = spec.userId;
    this.options = spec.options;
    this.lifespanMs = spec.lifespanMs;
    this.lastTouchedMs = spec.nowMs;
    this.lastServedMs = spec.nowMs;
  }

  /** The queue as it is now, to be saved. */
  snapshot(): QueueSnapshot {
    const { id, realmId, userId, options, lifespanMs, lastTouchedMs, lastServedMs, nextId, newestPrunedId } = this;
    return { id, realmId, userId, options, lifespanMs, lastTouchedMs, lastServedMs, nextId, newestPrunedId, events: this.contents() };
  }

  /** A queue as it was when `snapshot` was taken (ids, pending events and times included). */
  static restore(saved: QueueSnapshot): EventQueue {
    const queue = new EventQueue({ ...saved, nowMs: saved.lastServedMs });
    queue.lastTouchedMs = saved.lastTouchedMs;
    for (const { id: _id, ...event } of saved.events) queue.events.push(event);
    queue.nextId = saved.nextId;
    queue.newestPrunedId = saved.newestPrunedId;
    return queue;
  }

  /** Whether the client asked for this event: its type is wanted and messages match the narrow. */
  accepts(event: ApiEvent): boolean {
    const types = this.options.event_types;
    if (types !== null && !types.includes(event.type)) return false;
    return eventMatchesNarrow(this.options.narrow, event);
  }

  /** Appends an event with the next id; returns the id. Events carry no id of their own. */
  push(event: ApiEvent): number {
    this.events.push(event);
    return this.nextId++;
  }

  /**
   * Drops the events up to and including `lastEventId`. Like Zulip, refuses to go back past an
   * event already dropped, and reports an id this queue never held at that position.
   */
  acknowledge(lastEventId: number): AckResult {
    if (lastEventId < this.newestPrunedId) return "already_pruned";
    while (this.events.length > 0 && this.firstPendingId() <= lastEventId) {
      this.newestPrunedId = this.firstPendingId();
      this.events.shift();
    }
    return lastEventId === this.newestPrunedId ? "ok" : "not_in_queue";
  }

  /** The pending events, oldest first, as they are now (later pushes do not change them). */
  pending(): PendingEvents {
    return new PendingEvents(this.firstPendingId(), [...this.events]);
  }

  /** The id of the oldest pending event (of the next one when none is pending). */
  private firstPendingId(): number {
    return this.nextId - this.events.length;
  }

  /** The pending events, oldest first, each with its id. */
  contents(): QueuedEvent[] {
    return this.pending().toArray();
  }

  isEmpty(): boolean {
    return this.events.length === 0;
  }

  /** Records client activity (keeps the queue from being collected). */
  touch(nowMs: number): void {
    this.lastTouchedMs = Math.max(this.lastTouchedMs, nowMs);
  }

  /** Records that the client was just answered. */
  markServed(nowMs: number): void {
    this.touch(nowMs);
    this.lastServedMs = nowMs;
  }

  /** Whether the queue has been idle for its whole lifespan. */
  isExpired(nowMs: number): boolean {
    return nowMs - this.lastTouchedMs >= this.lifespanMs;
  }
}

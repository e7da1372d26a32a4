/**
 * Message events in id order across processes (REDIS_URL). Each process publishes its own
 * messages in id order (events/message-order.ts), but ids come from one database sequence that
 * every process draws from: a process whose send drew id 10 can commit and publish before another
 * process publishes the 9 it drew first. The Zulip apps append message events to their list as
 * they come, so a queue must get 9 before 10.
 *
 * Every publisher names, with the events it publishes, every message id its transaction drew,
 * rolled-back ones included (RedisBus.publish's `messageIds`). A process hands deliveries to its
 * queues through one DeliveryOrder, in the order they reach it, except that a message event
 * waits until every lower message id has reached it (as an event or named as drawn), and events
 * that came after a waiting message wait behind it, so that what refers to a message never
 * precedes it. A lower id that never comes (drawn by a process that crashed, or outside the bus)
 * is given up on after `waitMs`: no event waits longer than that for the ones before it.
 */
import type { Delivery } from "./types.ts";

/** A delivery held until the ones it must follow have come. */
type Held = { delivery: Delivery; messageId: number | null; sinceMs: number; done: boolean };

/** The message id of a `message` event, else null. */
function messageIdOf(delivery: Delivery): number | null {
  const event = delivery.event;
  return event.type === "message" ? event.message.id : null;
}

export class DeliveryOrder {
  /** Every message id below it has come (or was given up on); null until the first id comes. */
  private floor_: number | null = null;
  /** Ids at or above the floor that have come. */
  private readonly seen = new Set<number>();
  /** Deliveries waiting, in the order they will be handed over: arrival order, message events sorted by id among themselves. */
  private held: Held[] = [];
  /** The held message events in the order they came (handed-over ones are skipped lazily): the first is the one waiting longest. */
  private arrivals: Held[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The held message event the timer is set for. */
  private timed: Held | null = null;
  private idleWaiters: Array<() => void> = [];

  constructor(
    /** Hands a delivery to the subscribers. */
    private readonly handOver: (delivery: Delivery) => void,
    /** The longest a message event waits for lower ids. */
    private readonly waitMs: number,
  ) {}

  /** The lowest message id that may still come (null before any): what a restart goes on from. */
  get floor(): number | null {
    return this.floor_;
  }

  /** Whether deliveries are waiting. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** Sets the floor before anything comes: a restart's saved floor, or the store's next message id. */
  startFrom(floor: number | null): void {
    this.floor_ = floor;
    this.seen.clear();
  }

  /** Resolves once nothing is held (at once if nothing is). */
  idle(): Promise<void> {
    if (this.held.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Message ids a publisher drew: none of them is still to come. */
  drawn(ids: readonly number[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.see(id);
    if (this.held.length > 0) this.release();
  }

  /** A delivery, as it arrives: handed over now, or once the message events it must follow have been. */
  push(delivery: Delivery): void {
    const messageId = messageIdOf(delivery);
    if (messageId !== null) this.see(messageId);
    if (this.held.length === 0 && (messageId === null || this.isDue(messageId))) {
      this.handOver(delivery);
      return;
    }
    const held: Held = { delivery, messageId, sinceMs: Date.now(), done: false };
    this.held.splice(this.positionFor(messageId), 0, held);
    if (messageId !== null) this.arrivals.push(held);
    this.release();
  }

  /** Hands over everything waiting, in order, without waiting for missing ids (the bus is stopping). */
  flush(): void {
    // Held message events are sorted by id: the last one's is the highest.
    for (let i = this.held.length - 1; i >= 0; i--) {
      const messageId = this.held[i].messageId;
      if (messageId === null) continue;
      this.giveUpBelow(messageId);
      break;
    }
    this.release();
  }

  /** Stops the timer (what is held stays held: flush first). */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.timed = null;
  }

  /** Where a new delivery goes: at the end, or a message event before the first held one with a higher id. */
  private positionFor(messageId: number | null): number {
    if (messageId === null) return this.held.length;
    let at = this.held.length;
    // Most come in order: search from the end.
    for (let i = this.held.length - 1; i >= 0; i--) {
      const other = this.held[i].messageId;
      if (other !== null && other > messageId) at = i;
      else if (other !== null) break;
    }
    return at;
  }

  private isDue(messageId: number): boolean {
    return this.floor_ === null || messageId < this.floor_;
  }

  private see(id: number): void {
    if (this.floor_ === null) this.floor_ = id;
    if (id < this.floor_) return;
    this.seen.add(id);
    while (this.seen.delete(this.floor_)) this.floor_++;
  }

  /** Counts every id below `id` as come (they never will). */
  private giveUpBelow(id: number): void {
    if (this.floor_ !== null && this.floor_ >= id) return;
    for (const seen of this.seen) if (seen < id) this.seen.delete(seen);
    this.floor_ = id;
    while (this.seen.delete(this.floor_)) this.floor_++;
  }

  /** Hands over the held deliveries that are due, from the front; times the wait of the rest. */
  private release(): void {
    let due = 0;
    while (due < this.held.length) {
      const messageId = this.held[due].messageId;
      if (messageId !== null && !this.isDue(messageId)) break;
      due++;
    }
    if (due > 0) {
      const ready = this.held.splice(0, due);
      for (const held of ready) {
        held.done = true;
        this.handOver(held.delivery);
      }
      if (this.held.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
    this.armTimer();
  }

  /** Gives up, `waitMs` after the longest-waiting message event came, on the ids it waits for. */
  private armTimer(): void {
    let skip = 0;
    while (skip < this.arrivals.length && this.arrivals[skip].done) skip++;
    if (skip > 0) this.arrivals.splice(0, skip);
    const oldest = this.arrivals[0] ?? null;
    if (oldest === this.timed) return;
    this.close();
    if (oldest === null) return;
    this.timed = oldest;
    this.timer = setTimeout(() => {
      // After the I/O of this turn of the event loop: when the loop was busy past the bound,
      // timers run first, and the ids waited for may be in the bus's unread answer.
      setImmediate(() => {
        if (this.timed !== oldest) return;
        this.timer = null;
        this.timed = null;
        if (!oldest.done) this.giveUpBelow(oldest.messageId as number);
        this.release();
      });
    }, Math.max(0, oldest.sinceMs + this.waitMs - Date.now()));
  }
}

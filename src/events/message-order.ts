/**
 * Message events in id order. On PostgreSQL two sends run at once: the one that drew the lower
 * message id can commit second, and a queue would then get message N+1 before N (clients that
 * append by arrival show them out of order). Each transaction that inserts messages takes a
 * ticket: it reserves a slot before each insert and fills it with the new id. After commit, its
 * events wait their turn: until no other open ticket of this process holds a lower id, or an
 * insert whose id is not known yet. A rolled-back ticket just leaves.
 *
 * Only committed tickets wait, and they wait only for tickets with a lower first id or an insert
 * still in flight (both inside a transaction, so they end by themselves): there is no cycle.
 * Message ids come from one increasing sequence, so an insert that starts later draws a higher id
 * than every id already known. The order holds within one process; with several processes
 * (REDIS_URL) each keeps its own, and events/delivery-order.ts orders theirs at each receiver,
 * from the ids each ticket drew (`drawnIds`).
 */

const NONE: readonly number[] = [];

/** One transaction attempt's messages. */
export class MessageTicket {
  /** Inserts started whose id is not known yet. */
  inFlight = 0;
  /** The lowest and highest id this transaction inserted. */
  minId = Number.POSITIVE_INFINITY;
  maxId = Number.NEGATIVE_INFINITY;
  /** Every id this transaction drew, in the order drawn (most transactions draw none). */
  drawnIds: readonly number[] = NONE;

  constructor(private readonly order: MessageOrder) {}

  /** Call before inserting a message; call the returned function with its id (or never, if the insert fails). */
  reserve(): (id: number) => void {
    this.order.open(this);
    this.inFlight++;
    let filled = false;
    return (id) => {
      if (filled) return;
      filled = true;
      this.inFlight--;
      this.minId = Math.min(this.minId, id);
      this.maxId = Math.max(this.maxId, id);
      this.drawnIds = [...this.drawnIds, id];
      this.order.changed();
    };
  }

  /** Resolves when this committed transaction's events may be published. */
  turn(): Promise<void> {
    return this.order.turn(this);
  }

  /** The transaction's events are published, or it rolled back: others stop waiting for it. */
  close(): void {
    this.order.close(this);
  }
}

/** The open tickets of this process, and the committed ones waiting for their turn. */
export class MessageOrder {
  private readonly open_ = new Set<MessageTicket>();
  private readonly waiting = new Map<MessageTicket, () => void>();

  ticket(): MessageTicket {
    return new MessageTicket(this);
  }

  /** Open tickets (for tests and logs). */
  get openCount(): number {
    return this.open_.size;
  }

  /** @internal */
  open(ticket: MessageTicket): void {
    this.open_.add(ticket);
  }

  /** @internal */
  close(ticket: MessageTicket): void {
    if (!this.open_.delete(ticket)) return;
    this.waiting.delete(ticket);
    this.changed();
  }

  /** @internal */
  turn(ticket: MessageTicket): Promise<void> {
    if (!this.open_.has(ticket) || !this.mustWait(ticket)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(ticket, resolve));
  }

  /** @internal Wakes the waiting tickets whose turn has come. */
  changed(): void {
    for (const [ticket, resolve] of this.waiting) {
      if (this.mustWait(ticket)) continue;
      this.waiting.delete(ticket);
      resolve();
    }
  }

  private mustWait(ticket: MessageTicket): boolean {
    for (const other of this.open_) {
      if (other === ticket) continue;
      if (other.inFlight > 0 || other.minId < ticket.minId) return true;
    }
    return false;
  }
}

/** This process's order (ids come from one database, and a process serves one). */
export const messageOrder = new MessageOrder();

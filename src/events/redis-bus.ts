/**
 * The event bus across processes: deliveries are appended to one Redis stream per database, and
 * every process reads the stream and hands them to the queues it holds. The stream is the
 * per-process backlog too: it keeps the newest EVENT_BACKLOG_LENGTH batches, so a process that
 * stops gracefully saves where it was (position()) and, started again, reads on from there: its
 * saved queues get every event published while it was down. The publishing process delivers to
 * its own queues at once (so an action's events are queued before it answers, unless a message
 * event waits for lower ids: events/delivery-order.ts) and skips its own entries, unparsed, when
 * it reads them back.
 */
import crypto from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { DeliveryHandler, EventBus } from "./bus.ts";
import { DeliveryOrder } from "./delivery-order.ts";
import { isApiEvent, type Delivery } from "./types.ts";

/** Processes sharing a database share a stream; the name reveals nothing about the database URL. */
export function busChannel(config: Pick<Config, "databaseUrl" | "dataDir">): string {
  const digest = crypto.createHash("sha256").update(config.databaseUrl ?? config.dataDir).digest("hex");
  return `parley:events:${digest.slice(0, 16)}`;
}

/** At most this many entries are read at once. */
const READ_BATCH = 500;

/** How long a stopping process waits for its reader to catch up with the stream before saving where it is. */
const CATCH_UP_TIMEOUT_MS = 5000;

/** The field of a stream entry that holds the batch. */
const FIELD = "d";

/**
 * The field that names the publishing process, ahead of the batch: a process skips its own
 * entries without parsing them (the batch repeats it for readers that look only there).
 */
const ORIGIN_FIELD = "o";

/** A stream entry id: milliseconds and a sequence number. */
const STREAM_ID = /^(\d+)-(\d+)$/;

/** The empty stream's position: before every entry. */
const START = "0-0";

/** Orders two stream ids (negative, zero or positive). */
export function compareStreamIds(a: string, b: string): number {
  const [, aMs = "0", aSeq = "0"] = STREAM_ID.exec(a) ?? [];
  const [, bMs = "0", bSeq = "0"] = STREAM_ID.exec(b) ?? [];
  const ms = BigInt(aMs) - BigInt(bMs);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(aSeq) - BigInt(bSeq);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function toDelivery(value: unknown): Delivery | null {
  if (!isRecord(value) || typeof value.realmId !== "number" || !Array.isArray(value.userIds) || !isApiEvent(value.event)) return null;
  const userIds = value.userIds.filter((id): id is number => Number.isInteger(id));
  return { realmId: value.realmId, event: value.event, userIds, allPublicStreamsQueues: value.allPublicStreamsQueues === true };
}

/** What one stream entry holds: its publisher's deliveries and the message ids its transactions drew. */
type Batch = { origin: string; deliveries: Delivery[]; messageIds: number[] };

/** Reads a stream entry's batch; null when it is not ours or is malformed. */
function parseBatch(message: string): Batch | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || typeof parsed.origin !== "string" || !Array.isArray(parsed.deliveries)) return null;
  const deliveries = parsed.deliveries.map(toDelivery).filter((d): d is Delivery => d !== null);
  // Entries of an earlier release name no ids: their messages are ordered by their events alone.
  const messageIds = Array.isArray(parsed.messageIds) ? parsed.messageIds.filter((id): id is number => Number.isInteger(id)) : [];
  return { origin: parsed.origin, deliveries, messageIds };
}

/**
 * Where a process stands on the bus, as position() writes it for the next start: the last stream
 * entry read, then the lowest message id whose event may still come (events/delivery-order.ts).
 */
function parsePosition(position: string): { streamId: string; messageFloor: number | null } | null {
  const [streamId, floor] = position.split(" ");
  if (!STREAM_ID.test(streamId)) return null;
  const messageFloor = floor !== undefined && /^[0-9]+$/.test(floor) ? Number(floor) : null;
  return { streamId, messageFloor };
}

/** The value of `field` in a flat [field, value, ...] reply. */
function fieldOf(reply: unknown[], field: string): unknown {
  for (let i = 0; i + 1 < reply.length; i += 2) if (reply[i] === field) return reply[i + 1];
  return undefined;
}

/** What XINFO STREAM says about the backlog: the newest id ever added, the oldest id kept, and whether none was ever trimmed. */
export type StreamInfo = { lastGenerated: string; firstKept: string | null; untrimmed: boolean };

/** A bus shared by every process connected to the same Redis and database. */
export class RedisBus implements EventBus {
  private handlers: DeliveryHandler[] = [];
  /** Hands deliveries to the handlers with message events in id order, whichever process published them. */
  private readonly order: DeliveryOrder;
  /** Identifies this process's entries on the stream. */
  private readonly origin = crypto.randomBytes(8).toString("hex");
  /** The newest entry handed to the handlers (or skipped as this process's own). */
  private lastRead = START;
  private reading: Promise<void> | null = null;
  private stopping = false;
  /** Published here and not yet appended to the stream (see flush). */
  private outgoing: Delivery[] = [];
  private outgoingIds: number[] = [];
  private flushing: NodeJS.Immediate | null = null;
  /** Resolved as the reader passes a stream id (the stop waits until it has read everything). */
  private waiters: { id: string; resolve(): void }[] = [];

  private constructor(
    private readonly publisher: Redis,
    private readonly reader: Redis,
    private readonly key: string,
    private readonly maxLength: number,
    /** How long a message event waits for lower ids (EVENT_ORDER_WAIT_MS). */
    private readonly orderWaitMs: number,
    private readonly log: Logger,
  ) {
    this.order = new DeliveryOrder((delivery) => this.handOver(delivery), orderWaitMs);
  }

  /** Connects (without reading yet: see start) and returns the bus; throws if Redis cannot be reached. */
  static async connect(url: string, key: string, opts: { backlogLength: number; orderWaitMs: number; log: Logger }): Promise<RedisBus> {
    const { Redis } = await import("ioredis"); // loaded only with REDIS_URL
    const publisher = new Redis(url, { lazyConnect: true });
    const reader = new Redis(url, { lazyConnect: true });
    await publisher.connect();
    await reader.connect();
    return new RedisBus(publisher, reader, key, opts.backlogLength, opts.orderWaitMs, opts.log);
  }

  publish(deliveries: Delivery[], messageIds: readonly number[] = []): void {
    // Every publish of one turn of the event loop (a group commit's transactions answer in one)
    // goes out as one entry: one XADD, and one entry for each other process to read and parse.
    // Scheduled before this process's own delivery, so that it goes out ahead of the polls that
    // delivery answers at the turn's end (QueueManager's answerAfterTurn).
    this.outgoing.push(...deliveries);
    this.outgoingIds.push(...messageIds);
    if (this.flushing === null) this.flushing = setImmediate(() => this.flush());
    this.dispatch(deliveries, messageIds);
  }

  /** Appends the deliveries published since the last flush, and the message ids drawn, to the stream as one entry. */
  private flush(): void {
    if (this.flushing !== null) clearImmediate(this.flushing);
    this.flushing = null;
    if (this.outgoing.length === 0 && this.outgoingIds.length === 0) return;
    const ids = this.outgoingIds.length > 0 ? this.outgoingIds : undefined;
    const batch = JSON.stringify({ origin: this.origin, deliveries: this.outgoing, messageIds: ids });
    this.outgoing = [];
    this.outgoingIds = [];
    this.publisher.xadd(this.key, "MAXLEN", "~", String(this.maxLength), "*", ORIGIN_FIELD, this.origin, FIELD, batch).catch((err: unknown) => {
      this.log.error({ err }, "could not publish events to Redis");
    });
  }

  subscribe(handler: DeliveryHandler): void {
    this.handlers.push(handler);
  }

  /**
   * Starts reading the stream. With `from` (the position() a graceful stop saved), reading goes
   * on from there when the stream still holds every entry since, and this answers true; else
   * (no position, or the backlog was trimmed past it, or Redis lost the stream) it reads from
   * the newest entry on and answers false: whatever was saved has missed events. Message events
   * are ordered from the message id `from` names, or else from `messageFloor` (the store's next
   * message id: a lower one is committed, never to be used, or under way, and then handed over
   * as it comes).
   */
  async start(from: string | null, messageFloor: number | null = null): Promise<boolean> {
    const info = await this.streamInfo();
    const saved = from === null ? null : parsePosition(from);
    const resumable = saved !== null && backlogReaches(info, saved.streamId);
    this.lastRead = resumable ? saved.streamId : info.lastGenerated;
    this.order.startFrom((resumable ? saved.messageFloor : null) ?? messageFloor);
    this.reading = this.readLoop();
    return resumable;
  }

  /**
   * Where this process stands on the stream: every entry up to it has been handed over; and,
   * after a space, the lowest message id whose event may still come.
   */
  position(): string {
    const floor = this.order.floor;
    return floor === null ? this.lastRead : `${this.lastRead} ${floor}`;
  }

  /**
   * Stops reading once everything published so far (this process's entries included) has been
   * read and no message event waits for lower ids (for at most EVENT_ORDER_WAIT_MS), so that
   * position() misses nothing; then disconnects.
   */
  async close(): Promise<void> {
    this.flush();
    if (this.reading) {
      try {
        // Queued after this process's own pending XADDs on the same connection: it sees them.
        await this.caughtUp((await this.streamInfo()).lastGenerated);
        await this.orderIdle();
      } catch (err) {
        this.log.warn({ err }, "could not read the event stream to its end before stopping");
      }
    }
    this.stopping = true;
    this.reader.disconnect();
    await this.reading;
    // What still waits for lower ids goes to the queues now: they are saved next.
    this.order.flush();
    this.order.close();
    this.handlers = [];
    await this.publisher.quit();
  }

  /** Resolves once no message event waits for lower ids, or after EVENT_ORDER_WAIT_MS. */
  private async orderIdle(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.order.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, this.orderWaitMs)))]);
    clearTimeout(timer);
  }

  private async streamInfo(): Promise<StreamInfo> {
    let reply: unknown;
    try {
      reply = await this.publisher.call("XINFO", "STREAM", this.key);
    } catch (err) {
      // A stream that does not exist yet: nothing was ever published (or Redis lost it).
      if (err instanceof Error && /no such key/i.test(err.message)) return { lastGenerated: START, firstKept: null, untrimmed: true };
      throw err;
    }
    const fields = Array.isArray(reply) ? reply : [];
    const lastGenerated = String(fieldOf(fields, "last-generated-id") ?? START);
    const first = fieldOf(fields, "first-entry");
    const firstKept = Array.isArray(first) && typeof first[0] === "string" ? first[0] : null;
    const untrimmed = Number(fieldOf(fields, "entries-added")) === Number(fieldOf(fields, "length"));
    return { lastGenerated, firstKept, untrimmed };
  }

  /** Resolves once the reader has passed `id` (at once if it has), or rejects after a bound. */
  private caughtUp(id: string): Promise<void> {
    if (compareStreamIds(this.lastRead, id) >= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out")), CATCH_UP_TIMEOUT_MS);
      this.waiters.push({ id, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private async readLoop(): Promise<void> {
    while (!this.stopping) {
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await this.reader.xread("COUNT", READ_BATCH, "BLOCK", 0, "STREAMS", this.key, this.lastRead)) as typeof reply;
      } catch (err) {
        if (this.stopping) return;
        this.log.error({ err }, "could not read the event stream from Redis; trying again");
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) this.receive(id, fields);
      }
      this.releaseWaiters();
    }
  }

  private receive(id: string, fields: string[]): void {
    this.lastRead = id;
    if (fieldOf(fields, ORIGIN_FIELD) === this.origin) return;
    const batch = parseBatch(String(fieldOf(fields, FIELD) ?? ""));
    if (!batch) {
      this.log.warn({ id }, "ignored a malformed entry on the event stream");
      return;
    }
    if (batch.origin !== this.origin) this.dispatch(batch.deliveries, batch.messageIds);
  }

  private releaseWaiters(): void {
    const due = this.waiters.filter((w) => compareStreamIds(this.lastRead, w.id) >= 0);
    this.waiters = this.waiters.filter((w) => !due.includes(w));
    for (const waiter of due) waiter.resolve();
  }

  /**
   * Passes deliveries through the order, then the ids their transactions drew: those of their
   * message events count once those events are in (counted earlier, they would let a higher id
   * of another process pass ahead of them); the others (rolled back) count from then on.
   */
  private dispatch(deliveries: Delivery[], messageIds: readonly number[]): void {
    for (const delivery of deliveries) this.order.push(delivery);
    this.order.drawn(messageIds);
  }

  private handOver(delivery: Delivery): void {
    for (const handler of this.handlers) handler(delivery);
  }
}

/**
 * Whether the stream still holds every entry after `from`: nothing newer was trimmed (the oldest
 * kept entry is at or before it, nothing was added since, or, from the empty stream's position,
 * nothing was ever trimmed) and the stream is the one `from` was read on (Redis restarted without
 * its data: its ids start again below `from`).
 */
export function backlogReaches(info: StreamInfo, from: string): boolean {
  const sinceFrom = compareStreamIds(info.lastGenerated, from);
  if (sinceFrom < 0) return false;
  if (sinceFrom === 0) return true;
  if (from === START) return info.untrimmed;
  return info.firstKept !== null && compareStreamIds(info.firstKept, from) <= 0;
}

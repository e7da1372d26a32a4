/**
 * The event bus across processes: deliveries go out on one Redis pub/sub channel per database,
 * and every process hands them to the queues it holds. The publishing process delivers to its
 * own queues at once (so an action's events are queued before it answers) and ignores its own
 * messages when Redis echoes them back.
 */
import crypto from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { DeliveryHandler, EventBus } from "./bus.ts";
import { isApiEvent, type Delivery } from "./types.ts";

/** Processes sharing a database share a channel; the name reveals nothing about the database URL. */
export function busChannel(config: Pick<Config, "databaseUrl" | "dataDir">): string {
  const digest = crypto.createHash("sha256").update(config.databaseUrl ?? config.dataDir).digest("hex");
  return `parley:events:${digest.slice(0, 16)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function toDelivery(value: unknown): Delivery | null {
  if (!isRecord(value) || typeof value.realmId !== "number" || !Array.isArray(value.userIds) || !isApiEvent(value.event)) return null;
  const userIds = value.userIds.filter((id): id is number => Number.isInteger(id));
  return { realmId: value.realmId, event: value.event, userIds, allPublicStreamsQueues: value.allPublicStreamsQueues === true };
}

/** Reads a bus message; null when it is not ours or is malformed. */
function parseMessage(message: string): { origin: string; deliveries: Delivery[] } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || typeof parsed.origin !== "string" || !Array.isArray(parsed.deliveries)) return null;
  const deliveries = parsed.deliveries.map(toDelivery).filter((d): d is Delivery => d !== null);
  return { origin: parsed.origin, deliveries };
}

/** A bus shared by every process connected to the same Redis and database. */
export class RedisBus implements EventBus {
  private handlers: DeliveryHandler[] = [];
  /** Identifies this process's messages on the channel. */
  private readonly origin = crypto.randomBytes(8).toString("hex");

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly log: Logger,
  ) {}

  /** Connects, subscribes and returns the bus; throws if Redis cannot be reached. */
  static async connect(url: string, channel: string, log: Logger): Promise<RedisBus> {
    const publisher = new Redis(url, { lazyConnect: true });
    const subscriber = new Redis(url, { lazyConnect: true });
    await publisher.connect();
    await subscriber.connect();
    const bus = new RedisBus(publisher, subscriber, channel, log);
    subscriber.on("message", (from: string, message: string) => {
      if (from === channel) bus.receive(message);
    });
    await subscriber.subscribe(channel);
    return bus;
  }

  publish(deliveries: Delivery[]): void {
    this.dispatch(deliveries);
    // One transaction, so that position() sees a message counted only once every subscriber
    // has it queued (a process reading it before unsubscribing still receives the message).
    const message = JSON.stringify({ origin: this.origin, deliveries });
    this.publisher.multi().publish(this.channel, message).incr(this.counterKey).exec().catch((err: unknown) => {
      this.log.error({ err }, "could not publish events to Redis");
    });
  }

  subscribe(handler: DeliveryHandler): void {
    this.handlers.push(handler);
  }

  /** How many messages every process has published on the channel (a counter kept next to it). */
  async position(): Promise<string | null> {
    return (await this.publisher.get(this.counterKey)) ?? "0";
  }

  async close(): Promise<void> {
    // Handlers stay until the subscriber is gone: messages already sent to it are still delivered.
    await this.subscriber.quit();
    this.handlers = [];
    await this.publisher.quit();
  }

  private get counterKey(): string {
    return `${this.channel}:published`;
  }

  private receive(message: string): void {
    const parsed = parseMessage(message);
    if (!parsed) {
      this.log.warn("ignored a malformed message on the event channel");
      return;
    }
    if (parsed.origin !== this.origin) this.dispatch(parsed.deliveries);
  }

  private dispatch(deliveries: Delivery[]): void {
    for (const delivery of deliveries) {
      for (const handler of this.handlers) handler(delivery);
    }
  }
}

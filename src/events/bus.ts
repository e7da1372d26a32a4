/**
 * The event bus: actions publish deliveries after commit; every process's queue manager
 * subscribes and hands each event to the queues it holds for the target users.
 */
import type { Delivery } from "./types.ts";

/** Receives each delivery a bus carries. */
export type DeliveryHandler = (delivery: Delivery) => void;

/** Carries deliveries from the writer to the processes holding the target users' queues. */
export interface EventBus {
  /**
   * Sends deliveries to every subscriber (in this process, and others when shared).
   * `messageIds`: every message id the publishing transaction drew, rolled back or not, so that
   * processes sharing a bus know no event will come for the rest (events/delivery-order.ts).
   */
  publish(deliveries: Delivery[], messageIds?: readonly number[]): void;
  /** Registers the handler that delivers to this process's queues. */
  subscribe(handler: DeliveryHandler): void;
  close(): Promise<void>;
}

/**
 * The bus a server process reads, which can pick up where a graceful stop left off, so that the
 * queues it saved (events/persist.ts) miss nothing published while it was down.
 */
export interface ServerBus extends EventBus {
  /**
   * Starts handing deliveries to the subscribers: from `from` (a position() saved at the last
   * stop) when the bus still can, answering true; else from now on, answering false.
   * `messageFloor`: the store's next message id, from which a shared bus orders message events
   * when it does not go on from `from`.
   */
  start(from: string | null, messageFloor?: number | null): Promise<boolean>;
  /** Where this process stands, after close(): null when it is the only publisher (nothing to catch up on). */
  position(): string | null;
}

/** A bus inside one process: delivery is synchronous, in publish order. */
export class LocalBus implements ServerBus {
  private handlers: DeliveryHandler[] = [];

  publish(deliveries: Delivery[]): void {
    for (const delivery of deliveries) {
      for (const handler of this.handlers) handler(delivery);
    }
  }

  subscribe(handler: DeliveryHandler): void {
    this.handlers.push(handler);
  }

  /** No one else publishes: saved queues missed nothing. */
  async start(): Promise<boolean> {
    return true;
  }

  position(): string | null {
    return null;
  }

  async close(): Promise<void> {
    this.handlers = [];
  }
}

/**
 * The event bus: actions publish deliveries after commit; every process's queue manager
 * subscribes and hands each event to the queues it holds for the target users.
 */
import type { Delivery } from "./types.ts";

/** Receives each delivery a bus carries. */
export type DeliveryHandler = (delivery: Delivery) => void;

/** Carries deliveries from the writer to the processes holding the target users' queues. */
export interface EventBus {
  /** Sends deliveries to every subscriber (in this process, and others when shared). */
  publish(deliveries: Delivery[]): void;
  /** Registers the handler that delivers to this process's queues. */
  subscribe(handler: DeliveryHandler): void;
  /**
   * A mark that moves whenever any process publishes, so that a restarted process knows whether
   * its saved queues missed events (events/persist.ts); null (or no method, as on the push
   * thread's bus) when this process is the only publisher. Read it at the start before
   * subscribing, and at the stop before closing.
   */
  position?(): Promise<string | null>;
  close(): Promise<void>;
}

/** A bus inside one process: delivery is synchronous, in publish order. */
export class LocalBus implements EventBus {
  private handlers: DeliveryHandler[] = [];

  publish(deliveries: Delivery[]): void {
    for (const delivery of deliveries) {
      for (const handler of this.handlers) handler(delivery);
    }
  }

  subscribe(handler: DeliveryHandler): void {
    this.handlers.push(handler);
  }

  async position(): Promise<string | null> {
    return null;
  }

  async close(): Promise<void> {
    this.handlers = [];
  }
}

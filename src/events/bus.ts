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

  async close(): Promise<void> {
    this.handlers = [];
  }
}

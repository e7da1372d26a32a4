/** Holds this process's event queues and hands each published delivery to the right ones. */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Delivery } from "./types.ts";

export class QueueManager {
  constructor(
    readonly clock: Clock,
    readonly config: Config,
  ) {}

  /** Appends a delivery's event to every queue of its target users (filled in by the events work). */
  deliver(_delivery: Delivery): void {}

  /** Stops timers and wakes waiting polls, for shutdown. */
  close(): void {}
}

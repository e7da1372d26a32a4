/**
 * Every event the server sends, as a union keyed by `type` (and `op`). Each resource area
 * declares its own members in `kinds/<area>.ts`; queues add `id` when they store an event.
 */
import type { HeartbeatEvent } from "./kinds/core.ts";

export type ApiEvent = HeartbeatEvent | AreaEvent;

/** Members contributed by resource areas; each is an object with a string `type`. */
export type AreaEvent = { type: string; op?: string; [field: string]: unknown };

/** An event as a queue holds and returns it: with the queue's increasing `id`. */
export type QueuedEvent = ApiEvent & { id: number };

/** An event with the recipients chosen by the action that caused it. */
export type Delivery = {
  realmId: number;
  event: ApiEvent;
  userIds: number[];
  /**
   * Also deliver to every queue of the realm registered with `all_public_streams` (messages
   * and updates in public channels reach those queues whether or not their user subscribes).
   */
  allPublicStreamsQueues?: boolean;
};

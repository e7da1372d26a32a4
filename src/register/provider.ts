/** The contract of the per-area snapshot builders that POST /register composes into the initial state. */
import type { Clock } from "../clock.ts";
import type { QueueManager } from "../events/queue-manager.ts";
import type { QueueOptions } from "../events/queue-options.ts";
import type { Caller } from "../permissions/caller.ts";

/** What a snapshot builder reads: the caller, the clock and this process's queues (an action's context has them all). */
export type SnapshotCtx = Caller & { clock: Clock; queues: QueueManager };

/**
 * One area's part of the register snapshot. `want(type)` tells whether the client asked for
 * initial data of an event type (e.g. "realm_user"); return only the keys for wanted types.
 */
export type StateProvider = {
  fetch(ctx: SnapshotCtx, opts: QueueOptions, want: (eventType: string) => boolean): Promise<Record<string, unknown>>;
};

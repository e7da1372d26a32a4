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

/**
 * `load()` when `wanted`, else undefined. Providers start every wanted key's reads at once and
 * then await them together: on PostgreSQL each read is a round trip, and one after another they
 * made the register's longest wait.
 */
export function ifWanted<T>(wanted: boolean, load: () => T | Promise<T>): Promise<T | undefined> {
  return wanted ? Promise.resolve(load()) : Promise.resolve(undefined);
}

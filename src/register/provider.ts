/** The contract of the per-area snapshot builders that POST /register composes into the initial state. */
import type { Clock } from "../clock.ts";
import type { QueueManager } from "../events/queue-manager.ts";
import type { QueueOptions } from "../events/queue-options.ts";
import type { Caller } from "../permissions/caller.ts";

/** What a snapshot builder reads: the caller, the clock (an action's context has both) and this process's queues. */
export type SnapshotCtx = Caller & { clock: Clock; queues: QueueManager };

/**
 * One area's part of the register snapshot. `want(type)` tells whether the client asked for
 * initial data of an event type (e.g. "realm_user"); return only the keys for wanted types.
 */
export type StateProvider = {
  fetch(ctx: SnapshotCtx, opts: QueueOptions, want: (eventType: string) => boolean): Promise<Record<string, unknown>>;
};

/** A snapshot key's read, or false when the client did not ask for the key. */
export type KeyRead = (() => unknown) | false;

/**
 * The snapshot keys whose read is not false, each with its value. Every read starts at once and
 * they are awaited together: on PostgreSQL each read is a round trip, and one after another they
 * made the register's longest wait.
 */
export async function readWanted(reads: Record<string, KeyRead>): Promise<Record<string, unknown>> {
  const wanted = Object.entries(reads).filter((entry): entry is [string, () => unknown] => entry[1] !== false);
  const values = await Promise.all(wanted.map(([, read]) => read()));
  return Object.fromEntries(wanted.map(([key], i) => [key, values[i]]));
}

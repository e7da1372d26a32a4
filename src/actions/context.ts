/** The context every action runs in, and the transaction helper that emits events on commit. */
import type { Kysely, Transaction } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { EventBus } from "../events/bus.ts";
import type { QueueManager } from "../events/queue-manager.ts";
import type { RateLimiter } from "../rate-limit.ts";
import type { ApiEvent, Delivery } from "../events/types.ts";
import type { Engine } from "../store/types.ts";
import type { GroupCommitter } from "../store/group-commit.ts";
import type { Database, RealmRow, UserRow } from "../store/schema.ts";

/** What an action may use: never a Fastify object, never a global. */
export type ActionCtx = {
  db: Kysely<Database>;
  engine: Engine;
  /** The store's write-transaction runner (see store/group-commit.ts). */
  transact: GroupCommitter;
  bus: EventBus;
  clock: Clock;
  log: Logger;
  config: Config;
  realm: RealmRow;
  /** The authenticated user, or null for unauthenticated (public-access) requests. */
  actor: UserRow | null;
  /** The client's name (from the User-Agent), as Zulip records it. */
  client: string;
  /** This process's event queues. */
  queues: QueueManager;
  /** Failed-login counter for POST /fetch_api_key. */
  loginLimiter: RateLimiter;
};

/** An action context whose caller is known to be authenticated. */
export type AuthedCtx = ActionCtx & { actor: UserRow };

/** How an emitted event is delivered beyond its users (see Delivery). */
export type EmitOptions = Pick<Delivery, "allPublicStreamsQueues">;

/** Queues an event for the given users; delivered only if the transaction commits. */
export type Emit = (event: ApiEvent, userIds: Iterable<number>, options?: EmitOptions) => void;

/**
 * Runs `fn` in one transaction. Events passed to `emit` are published after commit, in order;
 * a thrown error rolls back and publishes nothing.
 */
export async function withTransaction<T>(ctx: ActionCtx, fn: (tx: Transaction<Database>, emit: Emit) => Promise<T>): Promise<T> {
  const pending: Delivery[] = [];
  const emit: Emit = (event, userIds, options) => {
    const ids = [...new Set(userIds)];
    const allPublicStreamsQueues = options?.allPublicStreamsQueues === true;
    if (allPublicStreamsQueues) pending.push({ realmId: ctx.realm.id, event, userIds: ids, allPublicStreamsQueues });
    else if (ids.length > 0) pending.push({ realmId: ctx.realm.id, event, userIds: ids });
  };
  const result = await ctx.transact((tx) => fn(tx, emit));
  if (pending.length > 0) ctx.bus.publish(pending);
  return result;
}

/** The context every action runs in, and the transaction helper that emits events on commit. */
import type { Kysely, Transaction } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { LocalBus, type EventBus } from "../events/bus.ts";
import { messageOrder } from "../events/message-order.ts";
import type { ApiEvent, Delivery } from "../events/types.ts";
import type { Engine } from "../store/schema/types.ts";
import type { GroupCommitter, TransactionRun } from "../store/commit/group-commit.ts";
import type { MessageInsert } from "../store/messages/message-inserts.ts";
import type { InsertedMessage } from "../store/messages/messages.ts";
import type { Store } from "../store/db.ts";
import { syncReadCache } from "../store/engine/read-cache.ts";
import type { Database, RealmRow, UserRow } from "../store/schema/database.ts";
import { BatchRolledBackError, NestedTransactionError } from "../errors.ts";

/**
 * What an action may use: never a Fastify object, never a global. Exported actions take
 * `verbNoun(ctx, ...ids, input?)`: an `input` object of API parameters carries the wire names
 * exactly as the route's zod schema parses them (snake_case: `stream_id`, `emoji_name`), so a
 * route passes its `params` through (splitting off the ids the action takes as plain arguments)
 * and an API parameter is found in code by grep. Plain arguments are ordinary identifiers
 * (camelCase: `messageId`), as are request types that code builds rather than parses (the send
 * request with its `addressee`, a route's derived `groupSettings`).
 */
export type ActionCtx = {
  db: Kysely<Database>;
  engine: Engine;
  /** The store's write-transaction runner (see store/commit/group-commit.ts). */
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
  /** The request's one open write transaction, if any (shared by contexts derived with `{ ...ctx }`). */
  transactionGuard: TransactionGuard;
  /**
   * The digest of the browser session a /json request came with (null for API keys, workers
   * and the CLI): a password change ends the user's other sessions and keeps this one.
   */
  session: string | null;
  /** Where an unauthenticated request came from (a login's notice email names them); null for the others, workers and the CLI. */
  origin: RequestOrigin | null;
};

/** The client address and User-Agent header of a request. */
export type RequestOrigin = { ip: string; userAgent: string };

/**
 * Refuses a write transaction opened while the same request has one open. On SQLite such a
 * transaction waited for ever (it queues for the next group-commit batch, which cannot start
 * before the running one, which waits for it); on PostgreSQL it was a second, independent
 * transaction that committed even when the outer one rolled back, and could wait for ever on a
 * row lock the outer one held. It fails at once instead, with NestedTransactionError: pass the
 * outer `tx` down to the `do*` primitive. Running the inner work as a savepoint of the outer
 * transaction was rejected: its caller would publish its events for writes the outer one may
 * still roll back.
 *
 * The guard is per request, not per async context: Node 20's AsyncLocalStorage hooks every
 * promise of the process while it is enabled, which measured 8-10% more server CPU per channel
 * send. Every action context of a request shares one guard (actionCtx makes it; doEnv and
 * `{ ...ctx }` copies keep it), only this file calls `store.transact` (the layers test checks it:
 * `withTransaction` for requests and workers, `withBackgroundTransaction` for background batches
 * that belong to no request), and a request runs its transactions one after another.
 */
export class TransactionGuard {
  private open = false;

  /** Runs `transaction` unless this request has one open already. */
  async run<T>(transaction: () => Promise<T>): Promise<T> {
    if (this.open) throw new NestedTransactionError();
    this.open = true;
    try {
      return await transaction();
    } finally {
      this.open = false;
    }
  }
}

/** An action context whose caller is known to be authenticated. */
export type AuthedCtx = ActionCtx & { actor: UserRow };

/**
 * The server's parts every action context is made from (server.ts assembles them once, and each
 * worker gets the same object). The services only a few actions use (this process's event
 * queues, the login counter, presence written behind) are not among them: the routes that need
 * one are handed it (`RouteServices` in http/endpoint.ts) and pass it to their action.
 */
export type ServerDeps = {
  store: Store;
  bus: EventBus;
  clock: Clock;
  config: Config;
  log: Logger;
};

/** Who an action context acts for: the realm, the caller (null for none), the client's name, the browser session and the origin, if any. */
export type Acting = { realm: RealmRow; actor: UserRow | null; client: string; log?: Logger; session?: string | null; origin?: RequestOrigin };

/*
 * Contexts are built field by field here, never as `{ ...ctx, field }`: on Node 20 each
 * property written after a spread in an object literal takes V8's slow path (about 0.6 µs
 * each), and these objects are made several times per request (docs/benchmarks.md).
 */

/**
 * The parts for acting outside a server (the admin commands): a bus no one reads, so what the
 * actions emit reaches clients only through the store, when they next register.
 */
export function standaloneDeps(store: Store, config: Config, clock: Clock, log: Logger): ServerDeps {
  return { store, bus: new LocalBus(), clock, config, log };
}

/** An action context over the server's parts, for one realm and caller, with its own transaction guard. */
export function actionCtx(deps: ServerDeps, acting: Acting): ActionCtx {
  const { store } = deps;
  return {
    db: store.reader,
    engine: store.engine,
    transact: store.transact,
    bus: deps.bus,
    clock: deps.clock,
    log: acting.log ?? deps.log,
    config: deps.config,
    realm: acting.realm,
    actor: acting.actor,
    client: acting.client,
    transactionGuard: new TransactionGuard(),
    session: acting.session ?? null,
    origin: acting.origin ?? null,
  };
}

/** How an emitted event is delivered beyond its users (see Delivery). */
type EmitOptions = Pick<Delivery, "allPublicStreamsQueues">;

/**
 * Queues an event for the given users; delivered only if the transaction commits.
 * `reserveMessageId` is called just before a message insert and its answer with the new id, so
 * the transaction's events are published in message-id order (events/message-order.ts).
 * `afterCommit` runs a function once the transaction has committed and its events are out
 * (never after a rollback): a worker's own wake-up signal, for jobs the transaction queued.
 */
export type Emit = {
  (event: ApiEvent, userIds: Iterable<number>, options?: EmitOptions): void;
  readonly reserveMessageId: () => (id: number) => void;
  readonly afterCommit: (signal: () => void) => void;
};

/**
 * What a trusted `do*` primitive may read besides its transaction: an action's context and the
 * `emit` of the transaction it writes in. Every primitive has one shape,
 * `doVerbNoun(tx, env, ...subjects, ...values)` (Zulip's do_*: the objects, then the values):
 * - `tx: Db`: the caller's transaction (or the database, for a single write); a primitive never
 *   opens a transaction, never publishes, and checks nothing (its callers check first);
 * - `env: Pick<DoEnv, ...>`: only the fields the primitive reads, so an action passes `ctx` or
 *   `doEnv(ctx, emit)`, and the CLI and bootstrap, which have no request, pass their own
 *   `{ realm, clock }` to the same function;
 * - then the rows it acts on (a user, a stream, messages), then plain values (a role, a checked
 *   input, the users its events go to).
 */
export type DoEnv = ActionCtx & { emit: Emit };

/**
 * The `env` of a transaction's `do*` primitives: `ctx` with the transaction's `emit`, acting as
 * `actor` with `client` when given (internal senders such as the Notification Bot). It shares
 * `ctx`'s transaction guard.
 */
export function doEnv(ctx: AuthedCtx, emit: Emit): AuthedCtx & DoEnv;
export function doEnv(ctx: ActionCtx, emit: Emit): DoEnv;
export function doEnv(ctx: ActionCtx, emit: Emit, actor: UserRow, client: string): AuthedCtx & DoEnv;
export function doEnv(ctx: ActionCtx, emit: Emit, actor: UserRow | null = ctx.actor, client: string = ctx.client): DoEnv {
  return {
    db: ctx.db,
    engine: ctx.engine,
    transact: ctx.transact,
    bus: ctx.bus,
    clock: ctx.clock,
    log: ctx.log,
    config: ctx.config,
    realm: ctx.realm,
    actor,
    client,
    transactionGuard: ctx.transactionGuard,
    session: ctx.session,
    origin: ctx.origin,
    emit,
  };
}

/**
 * PostgreSQL errors that mean "a concurrent transaction got there first": a unique violation
 * (check-then-insert raced), a serialization failure, a deadlock. Running the transaction again
 * sees the other one's commit, so its checks answer with the API's own error (or it succeeds).
 * SQLite serialises writers, so it never raises these for a race.
 */
const CONFLICT_CODES = new Set(["23505", "40001", "40P01"]);

/** Attempts of one transaction that keeps losing races, before the error stands. */
const MAX_ATTEMPTS = 3;

function isConflict(err: unknown): boolean {
  if (err instanceof BatchRolledBackError) return true;
  return typeof err === "object" && err !== null && CONFLICT_CODES.has(String((err as { code?: unknown }).code));
}

/**
 * Resolves once the read cache has noticed every commit made before the call, by any process
 * (the test-control route tests call after writing the database directly).
 */
export function syncReads(ctx: ActionCtx): Promise<void> {
  return syncReadCache(ctx.db);
}

/**
 * Runs `fn` in one write transaction outside any request, for background work that publishes no
 * event (the presence batches of store/users/presence-write-behind.ts): no request's guard to share.
 */
export function withBackgroundTransaction<T>(store: Store, fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  return store.transact(fn);
}

/**
 * Runs `fn` in one transaction. Events passed to `emit` are published after commit, in order
 * (and after every lower message id of this process: events/message-order.ts); a thrown error
 * rolls back and publishes nothing. A transaction that lost a race on PostgreSQL
 * (see CONFLICT_CODES), or whose group-commit batch another's error rolled back
 * (BatchRolledBackError), runs again, alone, with its events of the failed attempt dropped.
 */
export function withTransaction<T>(ctx: ActionCtx, fn: (tx: Transaction<Database>, emit: Emit) => Promise<T>): Promise<T> {
  return runTransaction(ctx, undefined, fn);
}

/**
 * `withTransaction` for a transaction that starts by inserting `message` (a checked channel
 * send): the store inserts it, on PostgreSQL in one statement with the messages of the sends
 * batched with it (store/messages/message-inserts.ts), and `fn` gets what the insert told.
 */
export function withMessageTransaction<T>(
  ctx: ActionCtx,
  message: MessageInsert,
  fn: (tx: Transaction<Database>, emit: Emit, inserted: InsertedMessage) => Promise<T>,
): Promise<T> {
  return runTransaction(ctx, message, (tx, emit, inserted) => {
    if (inserted === undefined) throw new Error("the store ran a message transaction without its insert");
    return fn(tx, emit, inserted);
  });
}

async function runTransaction<T>(
  ctx: ActionCtx,
  message: MessageInsert | undefined,
  fn: (tx: Transaction<Database>, emit: Emit, inserted: InsertedMessage | undefined) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const pending: Delivery[] = [];
    const signals: Array<() => void> = [];
    const ticket = messageOrder.ticket();
    const push = (event: ApiEvent, userIds: Iterable<number>, options?: EmitOptions) => {
      const ids = userIds instanceof Set ? [...userIds] : [...new Set(userIds)];
      if (options?.allPublicStreamsQueues === true) pending.push({ realmId: ctx.realm.id, event, userIds: ids, allPublicStreamsQueues: true });
      else if (ids.length > 0) pending.push({ realmId: ctx.realm.id, event, userIds: ids });
    };
    const reserveMessageId = () => ticket.reserve();
    const afterCommit = (signal: () => void) => void signals.push(signal);
    const emit: Emit = Object.assign(push, { reserveMessageId, afterCommit });
    // A retry runs alone: on PostgreSQL, outside any group-commit batch another could fail.
    const run: TransactionRun = { alone: attempt > 1, message: message && { row: message.row, flags: message.flags, topicPolicyUsers: message.topicPolicyUsers, reserve: reserveMessageId } };
    let result: T;
    try {
      result = await ctx.transactionGuard.run(() => ctx.transact((tx, inserted) => fn(tx, emit, inserted), run));
    } catch (err) {
      ticket.close();
      // The ids it drew stay unused: processes ordering message events stop waiting for them.
      if (ticket.drawnIds.length > 0) ctx.bus.publish([], ticket.drawnIds);
      if (attempt < MAX_ATTEMPTS && isConflict(err)) continue;
      throw err;
    }
    try {
      await ticket.turn();
      if (pending.length > 0 || ticket.drawnIds.length > 0) ctx.bus.publish(pending, ticket.drawnIds);
    } finally {
      ticket.close();
    }
    for (const signal of signals) signal();
    return result;
  }
}

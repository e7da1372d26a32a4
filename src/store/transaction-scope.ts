/**
 * Refuses a write transaction opened from inside another one, on both engines.
 *
 * `store.transact` called from code that runs inside a transaction's function used to hang for
 * ever on SQLite: the inner call is queued for the next group-commit batch, which cannot start
 * until the running one, waiting on the inner call, has ended. On PostgreSQL it opened a second,
 * independent transaction on another pool connection, which commits even when the outer one
 * rolls back and can wait for ever on a row lock the outer one holds (or on the pool itself).
 *
 * The inner call now fails at once with `NestedTransactionError`, a programming error: the fix
 * is to pass the outer transaction down (the `do*` primitives take `tx`). Running the inner work
 * as a savepoint of the outer transaction instead was rejected: its caller would hear "done" and
 * publish its events (actions/context.ts `withTransaction`) for writes that the outer
 * transaction may still roll back, so merging would silently change the atomicity it expects.
 *
 * The open transaction is tracked with one AsyncLocalStorage `run` per transaction; nothing is
 * done per statement. A transaction's scope closes when its function settles: work it scheduled
 * that runs later (a timer, a promise continued after it) may open a transaction of its own.
 * While it is open, every call from inside it fails, even one that is not awaited.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Thrown by `store.transact` called inside an open transaction: pass the outer transaction down. */
export class NestedTransactionError extends Error {
  constructor() {
    super("store.transact called inside a transaction: pass the outer transaction down");
    this.name = "NestedTransactionError";
  }
}

type Scope = { open: boolean };

const openTransaction = new AsyncLocalStorage<Scope>();

/**
 * Transactions running now. On Node 20 an enabled AsyncLocalStorage runs a hook for every promise
 * the process makes (measured: about 15% more server CPU per SQLite send when always on, about 6%
 * this way), so it is enabled only while a transaction runs: `run` enables it, and the last
 * transaction to end disables it, which only forgets scopes that are closed already.
 */
let running = 0;

/** Throws `NestedTransactionError` when the calling code runs inside an open transaction. */
export function refuseNestedTransaction(): void {
  if (openTransaction.getStore()?.open === true) throw new NestedTransactionError();
}

/** Runs `body` (one transaction's function) as inside an open transaction until it settles. */
export async function insideTransaction<T>(body: () => Promise<T>): Promise<T> {
  const scope: Scope = { open: true };
  running++;
  try {
    return await openTransaction.run(scope, body);
  } finally {
    scope.open = false;
    if (--running === 0) openTransaction.disable();
  }
}

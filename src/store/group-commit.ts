/**
 * Group commit for SQLite. SQLite has one writer and our server one connection, so write
 * transactions already run one after another; what each pays on its own is the commit (WAL
 * frames for every page it dirtied, FTS5's new index segment). Here the transactions that queue
 * up while one batch runs are run as the next batch: one BEGIN ... COMMIT, each transaction inside
 * its own savepoint. A transaction that throws is rolled back to its savepoint and only its caller
 * sees the error; the others still commit. Nobody's promise settles before the batch's COMMIT
 * has succeeded, so no caller reports (or publishes events for) a write that was not kept.
 *
 * Writes to the FTS5 search index wait for the end of the batch (`atBatchEnd`): FTS5 flushes its
 * pending terms to a new index segment at every savepoint, so indexing inside each savepoint cost
 * a segment (and its merging) per message; at the end of the batch one segment takes them all.
 *
 * A transaction opened from inside a job would wait for a batch that cannot start; actions
 * refuse to open one inside another (TransactionGuard in actions/context.ts).
 */
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema.ts";
import { shareReadCache } from "./read-cache.ts";

type Job = {
  fn: (tx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

type Write = () => Promise<void>;

/** The writes deferred by the job running in each open batch transaction. */
const deferredByBatch = new WeakMap<object, Write[]>();

/**
 * Runs `write` (a write on `db`) at the end of the group-commit batch that `db` is the
 * transaction of, just before its COMMIT, in the order of the calls, and only if the calling job
 * succeeded; outside a batch (on PostgreSQL, in migrations) it runs now. A deferred write that
 * fails fails the whole batch, so it must be one only a broken database refuses; the rest of the
 * job does not see its effects.
 */
export async function atBatchEnd(db: object, write: Write): Promise<void> {
  const deferred = deferredByBatch.get(db);
  if (deferred) deferred.push(write);
  else await write();
}

type Outcome = { job: Job; ok: true; value: unknown } | { job: Job; ok: false; error: unknown };

/**
 * Runs a transaction in the next group-commit batch; settles after that batch's COMMIT. `alone`
 * (PostgreSQL, store/pg-group-commit.ts): in a transaction of its own, for a retry.
 */
export type GroupCommitter = <T>(fn: (tx: Transaction<Database>) => Promise<T>, run?: { alone?: boolean }) => Promise<T>;

// Compiled once: these run twice per transaction.
const SAVEPOINT = CompiledQuery.raw("savepoint job");
const RELEASE = CompiledQuery.raw("release savepoint job");
const ROLLBACK_TO = CompiledQuery.raw("rollback to savepoint job");

/** A committer over `db` that puts at most `maxBatch` transactions in one commit. */
export function groupCommitter(db: Kysely<Database>, maxBatch: number): GroupCommitter {
  const waiting: Job[] = [];
  let running = false;

  async function runBatch(batch: Job[]): Promise<void> {
    const tx = await db.startTransaction().execute();
    shareReadCache(tx, db);
    const outcomes: Outcome[] = [];
    const kept: Write[] = [];
    try {
      for (const job of batch) {
        const deferred: Write[] = [];
        deferredByBatch.set(tx, deferred);
        await tx.executeQuery(SAVEPOINT);
        try {
          const value = await job.fn(tx);
          await tx.executeQuery(RELEASE);
          kept.push(...deferred);
          outcomes.push({ job, ok: true, value });
        } catch (error) {
          // Undo this job's writes only (its deferred ones are dropped); the batch goes on.
          await tx.executeQuery(ROLLBACK_TO);
          await tx.executeQuery(RELEASE);
          outcomes.push({ job, ok: false, error });
        }
      }
      deferredByBatch.delete(tx);
      for (const write of kept) await write();
      await tx.commit().execute();
    } catch (error) {
      // The batch itself failed (a deferred write, commit, or undoing a job): nothing was kept.
      deferredByBatch.delete(tx);
      await tx.rollback().execute().catch(() => undefined);
      for (const job of batch) job.reject(error);
      return;
    }
    for (const o of outcomes) {
      if (o.ok) o.job.resolve(o.value);
      else o.job.reject(o.error);
    }
  }

  async function drain(): Promise<void> {
    try {
      while (waiting.length > 0) await runBatch(waiting.splice(0, maxBatch));
    } finally {
      running = false;
    }
  }

  return <T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (running) return;
      running = true;
      // better-sqlite3 answers synchronously, so a request runs start to finish inside the I/O
      // callback that read it. Waiting for the check phase lets every request read in this
      // turn of the event loop queue its transaction first; they then share the commit.
      setImmediate(() => void drain());
    });
}

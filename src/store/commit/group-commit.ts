/**
 * Group commit for SQLite. SQLite has one writer and our server one connection, so write
 * transactions already run one after another; what each pays on its own is the commit (WAL
 * frames for every page it dirtied, FTS5's new index segment). Here the transactions that queue
 * up while one batch runs are run as the next batch: one BEGIN ... COMMIT, each transaction inside
 * its own savepoint. A transaction that throws is rolled back to its savepoint and only its caller
 * sees the error; the others still commit. Nobody's promise settles before the batch's COMMIT
 * has succeeded, so no caller reports (or publishes events for) a write that was not kept.
 *
 * Writes to the FTS5 search index wait for the end of the batch (`atBatchEnd`, batch-end.ts): FTS5 flushes its
 * pending terms to a new index segment at every savepoint, so indexing inside each savepoint cost
 * a segment (and its merging) per message; at the end of the batch one segment takes them all.
 *
 * A transaction opened from inside a job would wait for a batch that cannot start; actions
 * refuse to open one inside another (TransactionGuard in actions/context.ts).
 */
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "../schema/database.ts";
import { shareReadCache } from "../engine/read-cache.ts";
import { deferredByBatch, type Write } from "../engine/batch-end.ts";
import { insertLeading, type MessageInsert } from "../messages/message-inserts.ts";
import type { InsertedMessage } from "../messages/messages.ts";

/** A transaction's work: after its leading message insert, when it has one (`TransactionRun.message`). */
export type TransactionFn<T> = (tx: Transaction<Database>, inserted: InsertedMessage | undefined) => Promise<T>;

type Job = {
  fn: TransactionFn<unknown>;
  message: MessageInsert | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

type Outcome = { job: Job; ok: true; value: unknown } | { job: Job; ok: false; error: unknown };

/**
 * How a transaction runs: `alone` (PostgreSQL, store/commit/pg-group-commit.ts): in a transaction of its
 * own, for a retry; `message`: a message the committer inserts first and hands to the function
 * (on PostgreSQL, in one statement with the leading inserts of the transactions next to it in the
 * batch: store/messages/message-inserts.ts).
 */
export type TransactionRun = { alone?: boolean; message?: MessageInsert };

/** Runs a transaction in the next group-commit batch; settles after that batch's COMMIT. */
export type GroupCommitter = <T>(fn: TransactionFn<T>, run?: TransactionRun) => Promise<T>;

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
          const value = await job.fn(tx, await insertLeading(tx, "sqlite", job.message));
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

  return <T>(fn: TransactionFn<T>, run?: TransactionRun): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ fn, message: run?.message, resolve: resolve as (value: unknown) => void, reject });
      if (running) return;
      running = true;
      // better-sqlite3 answers synchronously, so a request runs start to finish inside the I/O
      // callback that read it. Waiting for the check phase lets every request read in this
      // turn of the event loop queue its transaction first; they then share the commit.
      setImmediate(() => void drain());
    });
}

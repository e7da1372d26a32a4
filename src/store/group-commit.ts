/**
 * Group commit for SQLite. SQLite has one writer and our server one connection, so write
 * transactions already run one after another; what each pays on its own is the commit (WAL
 * frames for every page it dirtied, FTS5's new index segment). Here the transactions that queue
 * up while one batch runs are run as the next batch: one BEGIN ... COMMIT, each transaction inside
 * its own savepoint. A transaction that throws is rolled back to its savepoint and only its caller
 * sees the error; the others still commit. Nobody's promise settles before the batch's COMMIT
 * has succeeded, so no caller reports (or publishes events for) a write that was not kept.
 */
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema.ts";

type Job = {
  fn: (tx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

type Outcome = { job: Job; ok: true; value: unknown } | { job: Job; ok: false; error: unknown };

/** Transactions per SQLite commit unless configured otherwise (SQLITE_GROUP_COMMIT_MAX). */
export const DEFAULT_GROUP_COMMIT_MAX = 64;

export type GroupCommitter = <T>(fn: (tx: Transaction<Database>) => Promise<T>) => Promise<T>;

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
    const outcomes: Outcome[] = [];
    try {
      for (const job of batch) {
        await tx.executeQuery(SAVEPOINT);
        try {
          const value = await job.fn(tx);
          await tx.executeQuery(RELEASE);
          outcomes.push({ job, ok: true, value });
        } catch (error) {
          // Undo this job's writes only; the batch goes on.
          await tx.executeQuery(ROLLBACK_TO);
          await tx.executeQuery(RELEASE);
          outcomes.push({ job, ok: false, error });
        }
      }
      await tx.commit().execute();
    } catch (error) {
      // The batch itself failed (commit, or undoing a job): nothing of it was kept.
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

/**
 * Group commit for PostgreSQL. A send there is three statements (BEGIN, the message with its
 * flags, COMMIT), each a round trip that wakes a PostgreSQL backend; the BEGIN and COMMIT cost as
 * much as the work. Under load, transactions that queue up while the lanes are busy run as one
 * batch: one BEGIN, each transaction's statements in turn, one COMMIT. A lone transaction runs as
 * it always did. Consecutive transactions of a batch that lead with a message insert (`run.message`:
 * a channel send) insert their messages in one statement (store/messages/message-inserts.ts), then run the
 * rest of their work in turn: so a batch of sends is three round trips, however many it holds.
 *
 * No savepoints: each would cost two more round trips, which is what batching saves. So when one
 * transaction of a batch throws, the batch is rolled back: that transaction's caller gets its
 * error, and every other one gets BatchRolledBackError, which actions/context.ts's
 * withTransaction answers by running its transaction again, alone (`{ alone: true }`), with fresh
 * events. Nobody's promise settles before the batch's COMMIT, so no caller reports (or publishes
 * events for) a write that was not kept.
 *
 * A transaction of a batch sees the writes of those before it in the batch (as it would had they
 * committed just before it started); in a run of sends, each also sees the later sends' messages,
 * as their rows were written together.
 *
 * Batches run one at a time, on one pooled connection (a lane), so that those who wait share one
 * commit: a second lane would start a small batch, and each batch costs its round trips again.
 * Another lane opens only when every open lane's batch has run for `laneWaitMs`, so one slow
 * transaction (a large import, a mass unsubscribe) holds up the others by at most that long.
 */
import type { ControlledTransaction, Kysely, Transaction } from "kysely";
import { BatchRolledBackError } from "../../errors.ts";
import type { GroupCommitter, TransactionFn, TransactionRun } from "./group-commit.ts";
import { insertLeading, insertMessages, type MessageInsert } from "../messages/message-inserts.ts";
import type { InsertedMessage } from "../messages/messages.ts";
import { shareReadCache } from "../engine/read-cache.ts";
import type { Database } from "../schema/database.ts";

type Job = {
  fn: TransactionFn<unknown>;
  message: MessageInsert | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

/** Where a batch stopped: the job that threw (or every job, when a shared insert failed), and the error. */
type Failure = { index: number | "all"; error: unknown };

/**
 * Runs the batch's jobs in turn on `tx`. A run of consecutive jobs that lead with a message insert
 * first inserts all their messages in one statement; a failure there is nobody's in particular,
 * unless the run is one job.
 */
async function runJobs(tx: Transaction<Database>, batch: Job[], values: unknown[]): Promise<Failure | null> {
  // What each job's leading insert told, by the job's index, filled a run of jobs at a time.
  const inserted: Array<InsertedMessage | undefined> = [];
  for (let index = 0; index < batch.length; index++) {
    const job = batch[index];
    if (job.message && inserted[index] === undefined) {
      let end = index;
      while (end < batch.length && batch[end].message) end++;
      try {
        const run = await insertMessages(tx, "postgres", batch.slice(index, end).map((j) => j.message as MessageInsert));
        run.forEach((message, k) => (inserted[index + k] = message));
      } catch (error) {
        return { index: end - index === 1 ? index : "all", error };
      }
    }
    try {
      values.push(await job.fn(tx, inserted[index]));
    } catch (error) {
      return { index, error };
    }
  }
  return null;
}

/**
 * A committer over `db`: batches of at most `maxBatch`, one lane at a time, up to `lanes` when
 * the open ones have each been busy for `laneWaitMs` (0: every lane opens as soon as work waits).
 */
export function pgGroupCommitter(db: Kysely<Database>, opts: { lanes: number; maxBatch: number; laneWaitMs: number }): GroupCommitter {
  const waiting: Job[] = [];
  /** When each open lane's batch started (performance.now()), oldest first. */
  const open: number[] = [];
  /** Looks again at the waiting jobs once the newest open lane has been busy for laneWaitMs. */
  let recheck: NodeJS.Timeout | null = null;

  async function runAlone(job: Job): Promise<void> {
    try {
      job.resolve(
        await db.transaction().execute(async (tx) => {
          shareReadCache(tx, db);
          return job.fn(tx, await insertLeading(tx, "postgres", job.message));
        }),
      );
    } catch (error) {
      job.reject(error);
    }
  }

  async function runBatch(batch: Job[]): Promise<void> {
    if (batch.length === 1) return runAlone(batch[0]);
    let tx: ControlledTransaction<Database>;
    try {
      tx = await db.startTransaction().execute();
    } catch (error) {
      for (const job of batch) job.reject(error);
      return;
    }
    shareReadCache(tx, db);
    const values: unknown[] = [];
    const failed = await runJobs(tx, batch, values);
    if (failed === null) {
      try {
        await tx.commit().execute();
      } catch (error) {
        // Nothing was kept (or it cannot be known): every caller hears it, as from a lone COMMIT.
        for (const job of batch) job.reject(error);
        return;
      }
      batch.forEach((job, i) => job.resolve(values[i]));
      return;
    }
    await tx.rollback().execute().catch(() => undefined);
    // A shared insert that failed ("all") is nobody's in particular: each runs again alone, where
    // the one whose message the database refused hears why.
    const { index, error } = failed;
    batch.forEach((job, i) => job.reject(i === index ? error : new BatchRolledBackError()));
  }

  function pump(): void {
    while (open.length < opts.lanes && waiting.length > 0) {
      const now = performance.now();
      const opensAt = open.length === 0 ? now : open[open.length - 1] + opts.laneWaitMs;
      if (now < opensAt) {
        recheck ??= setTimeout(() => {
          recheck = null;
          pump();
        }, opensAt - now).unref();
        return;
      }
      open.push(now);
      void runBatch(waiting.splice(0, opts.maxBatch)).finally(() => {
        open.splice(open.indexOf(now), 1);
        pump();
      });
    }
  }

  return <T>(fn: TransactionFn<T>, run?: TransactionRun): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const job: Job = { fn, message: run?.message, resolve: resolve as (value: unknown) => void, reject };
      // A transaction that a batch rolled back runs again by itself: another's failure cannot fail it twice.
      if (run?.alone) {
        void runAlone(job);
        return;
      }
      waiting.push(job);
      pump();
    });
}

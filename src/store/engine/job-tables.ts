/**
 * The shared queries of job tables (outgoing_webhook_jobs, push_relay_jobs, email_jobs, email_notify_jobs): rows with a
 * `due_at_ms` and `failed_tries`, taken by moving `due_at_ms` forward in an UPDATE guarded by
 * the due time the taker read, so of two processes sharing the database only one takes a job.
 */
import type { Db } from "../schema/types.ts";

/** The tables run by actions/job-loop.ts. */
export type JobTableName = "outgoing_webhook_jobs" | "push_relay_jobs" | "email_jobs" | "email_notify_jobs";

/** What every job row holds. */
type JobColumns = { id: number; due_at_ms: number; failed_tries: number };

/** Jobs of every realm due at `nowMs`, earliest first. */
async function dueJobs(db: Db, table: JobTableName, nowMs: number, limit: number): Promise<unknown[]> {
  return db.selectFrom(table as JobTableName).selectAll().where("due_at_ms", "<=", nowMs).orderBy("due_at_ms").orderBy("id").limit(limit).execute();
}

/** The earliest due time of any job in `table`, if there is one. */
async function nextJobDue(db: Db, table: JobTableName): Promise<number | null> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.min("due_at_ms").as("next"))
    .executeTakeFirst();
  return (row?.next as number | null | undefined) ?? null;
}

/** Takes a job still due as read (`dueAtMs`) until `leaseUntilMs`; false when another process took it. */
async function claimJob(db: Db, table: JobTableName, job: Pick<JobColumns, "id" | "due_at_ms">, leaseUntilMs: number): Promise<boolean> {
  const result = await db.updateTable(table).set({ due_at_ms: leaseUntilMs }).where("id", "=", job.id).where("due_at_ms", "=", job.due_at_ms).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records a failed attempt and when to try again. */
async function rescheduleJob(db: Db, table: JobTableName, id: number, failedTries: number, dueAtMs: number): Promise<void> {
  await db.updateTable(table).set({ failed_tries: failedTries, due_at_ms: dueAtMs }).where("id", "=", id).execute();
}

/** Drops a handled job. */
async function deleteJob(db: Db, table: JobTableName, id: number): Promise<void> {
  await db.deleteFrom(table).where("id", "=", id).execute();
}

/** One job table's queries, typed by its rows. */
export type JobQueue<Row extends JobColumns> = {
  /** Jobs of every realm due at `nowMs`, earliest first. */
  due(db: Db, nowMs: number, limit: number): Promise<Row[]>;
  /** The earliest due time of any job, if there is one. */
  nextDue(db: Db): Promise<number | null>;
  /** Takes a job still due as read until `leaseUntilMs`: the job as taken, or undefined when another process took it. */
  claim(db: Db, job: Row, leaseUntilMs: number): Promise<Row | undefined>;
  /** Records a failed attempt and when to try again. */
  reschedule(db: Db, id: number, failedTries: number, dueAtMs: number): Promise<void>;
  /** Drops a handled job. */
  remove(db: Db, id: number): Promise<void>;
};

/** The queries of one job table. */
export function jobQueue<Row extends JobColumns>(table: JobTableName): JobQueue<Row> {
  return {
    due: async (db, nowMs, limit) => (await dueJobs(db, table, nowMs, limit)) as Row[],
    nextDue: (db) => nextJobDue(db, table),
    claim: async (db, job, leaseUntilMs) => ((await claimJob(db, table, job, leaseUntilMs)) ? { ...job, due_at_ms: leaseUntilMs } : undefined),
    reschedule: (db, id, failedTries, dueAtMs) => rescheduleJob(db, table, id, failedTries, dueAtMs),
    remove: (db, id) => deleteJob(db, table, id),
  };
}

/**
 * Writes deferred to the end of a SQLite group-commit batch (store/commit/group-commit.ts runs them just
 * before its COMMIT): FTS5 flushes its pending terms to a new index segment at every savepoint, so
 * the search index's writes wait for the batch's end, where one segment takes them all.
 */

/** A deferred write. */
export type Write = () => Promise<void>;

/** The writes deferred by the job running in each open batch transaction (group-commit.ts sets and clears the entry). */
export const deferredByBatch = new WeakMap<object, Write[]>();

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


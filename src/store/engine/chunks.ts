/**
 * Caller-supplied lists of any length in SQL. One statement binds at most 32,766 values on SQLite
 * and 65,535 on PostgreSQL, so a query with an `in` list, or a multi-row insert, runs once per
 * chunk of the list. A chunk stays far below both limits (room for the statement's other
 * parameters), and a short list is one chunk: the same SQL and query plan as before. Binding the
 * whole list as one parameter (`json_each(?)`, `= any($1)`) was the alternative; SQLite cannot
 * estimate the size of such a list and, without table statistics, may then prefer scanning a
 * realm's rows by `realm_id` over looking the listed ids up.
 */
import { sql, type RawBuilder } from "kysely";
import { EXACT_LIST_MAX, paddedList } from "./in-list-buckets.ts";

/** Values of one `in` list per statement (a power of two: a padded list stays within it). */
export const LIST_CHUNK = 1024;

/** Bound values (rows times columns) per multi-row insert. */
const INSERT_VALUES = 5000;

/** `items` cut into consecutive pieces of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The distinct ids, ascending, in chunks: a query ordered by the listed id column returns its
 * rows in that order across the chunks, concatenated.
 */
export function idChunks(ids: readonly number[]): number[][] {
  if (ids.length === 0) return [];
  if (ids.length === 1) return [[ids[0]]];
  // A typed array sorts numbers natively, several times faster than Array#sort with a comparator.
  const sorted = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) sorted[i] = ids[i];
  sorted.sort();
  const distinct: number[] = [sorted[0]];
  for (let i = 1; i < sorted.length; i++) if (sorted[i] !== sorted[i - 1]) distinct.push(sorted[i]);
  return chunked(distinct, LIST_CHUNK);
}

/** The distinct values (first occurrences, in order) in chunks. */
export function valueChunks<T>(values: readonly T[]): T[][] {
  return chunked(values.length <= 1 ? values : [...new Set(values)], LIST_CHUNK);
}

/**
 * Rows in chunks small enough for one multi-row insert each (judged by the first row's columns),
 * of few distinct sizes: the largest power of two that fits while rows remain past EXACT_LIST_MAX,
 * then the rest as one chunk. 1,666 rows of three columns are four inserts of 1,024, 512, 128 and
 * 2 rows, so inserts of any length share a dozen statement shapes.
 */
export function rowChunks<R extends object>(rows: readonly R[]): R[][] {
  if (rows.length === 0) return [];
  const columns = Math.max(1, Object.keys(rows[0]).length);
  const max = powerOfTwoAtMost(Math.max(1, Math.floor(INSERT_VALUES / columns)));
  const out: R[][] = [];
  let start = 0;
  while (rows.length - start > EXACT_LIST_MAX) {
    const size = Math.min(max, powerOfTwoAtMost(rows.length - start));
    out.push(rows.slice(start, start + size));
    start += size;
  }
  if (start < rows.length) out.push(rows.slice(start));
  return out;
}

function powerOfTwoAtMost(n: number): number {
  return 2 ** Math.floor(Math.log2(n));
}

/** The rows `read` returns for each chunk, concatenated in chunk order (one query per chunk). */
export async function collectChunks<T, R>(chunks: readonly T[][], read: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  if (chunks.length === 1) return read(chunks[0]);
  const out: R[] = [];
  for (const chunk of chunks) {
    const rows = await read(chunk);
    for (const row of rows) out.push(row);
  }
  return out;
}

/** Runs `write` on each chunk in turn (one statement per chunk). */
export async function eachChunk<T>(chunks: readonly T[][], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (const chunk of chunks) await write(chunk);
}

/**
 * An id list for a condition inside a larger query that cannot run per chunk (a narrow's range
 * read, ordered and limited): bound values when short, padded as any list; past a chunk, the ids are
 * written into the SQL text as integer literals, which no bound-value limit counts. Only safe
 * integers are written (anything else throws), so nothing else can become SQL.
 */
export function idListSql(ids: readonly number[]): RawBuilder<unknown> {
  if (ids.length <= LIST_CHUNK) return sql.join(paddedList(ids));
  return sql.join(
    ids.map((id) => {
      if (!Number.isSafeInteger(id)) throw new TypeError(`not an id: ${id}`);
      return sql.lit(id);
    }),
  );
}

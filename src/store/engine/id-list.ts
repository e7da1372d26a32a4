/**
 * Many small rows read as one: a group's integer ids aggregated into one comma-separated text.
 * Turning each result row into a JavaScript object is most of the cost of reading a hundred ids
 * from SQLite (about 60 us against 12 us aggregated, measured here), and a channel send reads its
 * subscribers every time.
 */
import { sql, SqliteAdapter, type RawBuilder } from "kysely";
import type { Db } from "../schema/types.ts";

/** The aggregate of `column` (a qualified integer column) over each group, as text. */
export function idListAgg(db: Db, column: string): RawBuilder<string | null> {
  const ref = sql.ref(column);
  return db.getExecutor().adapter instanceof SqliteAdapter ? sql<string | null>`group_concat(${ref})` : sql<string | null>`string_agg(${ref}::text, ',')`;
}

/** The ids of an `idListAgg` text, ascending. */
export function parseIdList(text: string | null): number[] {
  if (text === null || text === "") return [];
  const ids = text.split(",").map(Number);
  // Read off an index in id order, the list is usually sorted already; the order is not promised.
  for (let i = 1; i < ids.length; i++) if (ids[i - 1] > ids[i]) return ids.sort((a, b) => a - b);
  return ids;
}

/**
 * PostgreSQL: the prepared queries (prepared.ts) run as named statements. The driver otherwise
 * sends each one's text to be parsed, analysed and planned again on every call; a named statement
 * is parsed once per connection and its plan kept, so a send's INSERT costs the server only its
 * execution. Only prepared queries are named: their SQL never depends on the values (no `in`
 * lists), so each has one text and one name, and there are few of them.
 *
 * PostgreSQL plans a named statement's first five calls for their values, then keeps one generic
 * plan if it costs that plan no more than the custom ones (else it plans every call). So a
 * prepared query must have a plan that suits every value: an equality lookup on an index, or a
 * walk driven by one index whatever the values (check it with EXPLAIN under
 * plan_cache_mode=force_generic_plan). That setting must not be the connections' own: it makes the
 * unnamed statements of every other query generic too.
 *
 * A few queries built anew on every call repeat one text nonetheless: a message page's depends
 * only on the narrow's shape and the page size, never on ids or names (they are parameters). Run
 * through executeRepeated, such a text is named from its second run on, so it is planned once per
 * connection as well; at most PG_NAMED_PAGE_QUERIES texts a process (each named statement holds
 * its plan in every connection of the pool), later ones are parsed and planned on each call.
 */
import type pg from "pg";
import type { Compilable, CompiledQuery } from "kysely";
import type { Db } from "../schema/types.ts";
import { DEFAULT_PG_NAMED_PAGE_QUERIES } from "../../config.ts";

/** Statement names by SQL text, filled as prepared queries compile for PostgreSQL. */
const names = new Map<string, string>();

/** Names the statement `sql` (a prepared query's PostgreSQL text) for every connection. */
export function nameStatement(name: string, sql: string): void {
  names.set(sql, `parley_${name}`);
}

/** Texts executeRepeated ran once, not yet named (forgotten when too many wait). */
const seenOnce = new Set<string>();
const SEEN_ONCE_MAX = 1000;

/** How many texts executeRepeated has named, and the most it may. */
let repeatedNamed = 0;
let repeatedLimit = DEFAULT_PG_NAMED_PAGE_QUERIES;

/** Names a repeated text at its second sighting while fewer than the limit are named. */
function nameRepeated(sql: string): void {
  if (names.has(sql) || repeatedNamed >= repeatedLimit) return;
  if (!seenOnce.has(sql)) {
    if (seenOnce.size >= SEEN_ONCE_MAX) seenOnce.clear();
    seenOnce.add(sql);
    return;
  }
  seenOnce.delete(sql);
  names.set(sql, `parley_repeated_${++repeatedNamed}`);
}

/**
 * Runs a query built anew on each call whose SQL text nonetheless repeats (PostgreSQL only), as a
 * named statement once its text came twice. The plan PostgreSQL keeps must suit every value (see
 * above): values that change the best plan, such as a page size or a search query, belong in the
 * text, not in parameters.
 */
export async function executeRepeated<R>(db: Db, query: Compilable<R>): Promise<R[]> {
  const compiled: CompiledQuery<R> = query.compile();
  nameRepeated(compiled.sql);
  return (await db.executeQuery(compiled)).rows;
}

type Query = (...args: unknown[]) => unknown;

/**
 * Makes the pool's connections run named statements for the texts nameStatement and
 * executeRepeated registered; `repeatedTexts` bounds the latter (PG_NAMED_PAGE_QUERIES, per process).
 */
export function useNamedStatements(pool: pg.Pool, repeatedTexts = DEFAULT_PG_NAMED_PAGE_QUERIES): void {
  repeatedLimit = repeatedTexts;
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as Query;
    const named: Query = (...args) => {
      const [text, values] = args;
      const name = typeof text === "string" && Array.isArray(values) ? names.get(text) : undefined;
      return name === undefined ? query(...args) : query({ name, text, values });
    };
    (client as unknown as { query: Query }).query = named;
  });
}

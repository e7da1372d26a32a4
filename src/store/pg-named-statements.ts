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
 */
import type pg from "pg";

/** Statement names by SQL text, filled as prepared queries compile for PostgreSQL. */
const names = new Map<string, string>();

/** Names the statement `sql` (a prepared query's PostgreSQL text) for every connection. */
export function nameStatement(name: string, sql: string): void {
  names.set(sql, `parley_${name}`);
}

type Query = (...args: unknown[]) => unknown;

/** Makes the pool's connections run named statements for the texts nameStatement registered. */
export function useNamedStatements(pool: pg.Pool): void {
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

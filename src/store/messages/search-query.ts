/**
 * The query side of full-text search, matching search-index.ts: SQLite's FTS5 `message_search`
 * (rowid = message id) and PostgreSQL's `messages.search_tsv`. Terms are tokens of
 * model/search-words.ts (letters and digits only), so they need no escaping inside an FTS5
 * string or a tsquery lexeme, and both engines compare them exactly as indexed.
 */
import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { Engine } from "../schema/types.ts";
import type { Database } from "../schema/database.ts";

/** Each term is one token or a phrase of adjacent tokens; all terms must match. */
type SearchTerms = readonly (readonly string[])[];

/** A query for message ids over `messages`. */
type MessageIdQuery = SelectQueryBuilder<Database, "messages", { id: number }>;

/** A query restricted to a search, with the id column to bound and order it by. */
export type SearchedQuery = { query: MessageIdQuery; id: Expression<number> };

function fts5Query(terms: SearchTerms): string {
  return terms.map((t) => `"${t.join(" ")}"`).join(" AND ");
}

/** A tsquery literal: taken as written, so no text-search parser re-cuts the tokens. */
function tsQuery(terms: SearchTerms): string {
  return terms.map((t) => `(${t.map((w) => `'${w}'`).join(" <-> ")})`).join(" & ");
}

/**
 * Restricts `query` to messages matching every term (no terms match nothing, as an empty tsquery
 * does upstream). SQLite joins the FTS5 table, and bounds and orders by its rowid, so that FTS5
 * drives the query in id order and a LIMIT stops it early; PostgreSQL adds a condition that the
 * planner serves from the GIN index or checks while walking the primary key.
 */
export function restrictToSearch(engine: Engine, terms: SearchTerms, query: MessageIdQuery): SearchedQuery {
  if (terms.length === 0) return { query: query.where(sql<SqlBool>`1 = 0`), id: sql.ref("messages.id") };
  const sqlite = engine === "sqlite";
  return {
    query: query
      .$if(sqlite, (q) =>
        q
          .innerJoin(sql`message_search`.as("message_search"), (join) => join.onRef(sql.ref("message_search.rowid"), "=", "messages.id"))
          .where(sql<SqlBool>`message_search match ${fts5Query(terms)}`),
      )
      .$if(!sqlite, (q) => q.where(sql<SqlBool>`messages.search_tsv @@ ${tsQuery(terms)}::tsquery`)),
    id: sql.ref(sqlite ? "message_search.rowid" : "messages.id"),
  };
}

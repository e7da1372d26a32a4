/**
 * The query side of full-text search, one small function per engine, matching how
 * search-index.ts indexes: SQLite's FTS5 `message_search` (rowid = message id) and PostgreSQL's
 * `messages.search_tsv` built with the 'simple' configuration. Words reach the SQL only as runs
 * of letters and digits, so they need no escaping inside FTS5 strings or tsquery lexemes.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { Engine } from "../db.ts";
import { SEARCH_CONFIG } from "./search-index.ts";

/** Each term is one word or a phrase of adjacent words; all terms must match. */
export type SearchTerms = readonly (readonly string[])[];

function fts5Query(terms: SearchTerms): string {
  return terms.map((t) => `"${t.join(" ")}"`).join(" AND ");
}

function tsQuery(terms: SearchTerms): string {
  return terms.map((t) => `(${t.map((w) => `'${w}'`).join(" <-> ")})`).join(" & ");
}

/** How each engine compares a word of the text with a word of the query (case and accent folding). */
export function foldWord(engine: Engine, word: string): string {
  // FTS5's unicode61 folds case and strips diacritics; PostgreSQL's 'simple' only lower-cases.
  const lowered = word.toLowerCase();
  return engine === "sqlite" ? lowered.normalize("NFKD").replace(/\p{M}/gu, "") : lowered;
}

/**
 * SQL: the message (`messages` under alias `alias`) matches every term. No terms match nothing,
 * as an empty tsquery does upstream.
 */
export function searchMatchSql(engine: Engine, terms: SearchTerms, alias = "messages"): Expression<SqlBool> {
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  const id = sql.ref(`${alias}.id`);
  if (engine === "sqlite") {
    return sql<SqlBool>`${id} in (select rowid from message_search where message_search match ${fts5Query(terms)})`;
  }
  return sql<SqlBool>`${sql.ref(`${alias}.search_tsv`)} @@ to_tsquery(${SEARCH_CONFIG}::regconfig, ${tsQuery(terms)})`;
}

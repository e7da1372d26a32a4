/**
 * The words of a `search` operand. Both indexes (SQLite FTS5 unicode61, PostgreSQL 'simple')
 * index runs of letters and digits, lower-cased; a query is the same runs. A quoted phrase, or
 * an unquoted term that splits into several words ("foo-bar"), must match as adjacent words;
 * the terms are ANDed (Zulip's plainto_tsquery plus quoted phrases).
 */

/** A search: each entry is one word or a phrase of adjacent words; all must match. */
export type SearchQuery = { terms: string[][] };

/** A run of letters, digits or private-use characters: a word, as both indexes cut text. */
export const WORD_PATTERN = /[\p{L}\p{N}\p{Co}]+/gu;

/** The words of a text, in order. */
export function words(text: string): string[] {
  return text.match(WORD_PATTERN) ?? [];
}

/** Parses search operands (joined by spaces, as Zulip does) into terms; empty when no word. */
export function parseSearch(operands: readonly string[]): SearchQuery {
  const joined = operands.join(" ");
  const terms: string[][] = [];
  for (const match of joined.matchAll(/"[^"]+"|\S+/g)) {
    const term = words(match[0]);
    if (term.length > 0) terms.push(term);
  }
  return { terms };
}

/** Every distinct word of a search, for highlighting. */
export function searchWords(query: SearchQuery): string[] {
  return [...new Set(query.terms.flat())];
}

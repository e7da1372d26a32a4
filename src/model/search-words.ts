/**
 * Search words. Text is cut into runs of letters and digits (`words`), each folded (`foldWord`);
 * both indexes (SQLite FTS5, PostgreSQL tsvector, see store/messages/search-index.ts) hold exactly
 * these tokens, so both engines match alike. A query is cut and folded the same way. A quoted
 * phrase, or an unquoted term that splits into several words ("foo-bar"), must match as adjacent
 * words; the terms are ANDed (Zulip's plainto_tsquery plus quoted phrases).
 */

/** A search: each entry is one token or a phrase of adjacent tokens; all must match. */
export type SearchQuery = { terms: string[][] };

/** A run of letters, digits or private-use characters: a word. */
export const WORD_PATTERN = /[\p{L}\p{N}\p{Co}]+/gu;

/** Characters a folded token keeps; compatibility decomposition may bring others (marks, spaces). */
const NOT_TOKEN_CHAR = /[^\p{L}\p{N}\p{Co}]/gu;

const ASCII_WORD = /^[A-Za-z0-9]*$/;

/** PostgreSQL refuses lexemes of 2 KiB or more (MAXSTRLEN); longer words are left out on both engines. */
const MAX_TOKEN_BYTES = 2047;

/** The words of a text, in order. */
function words(text: string): string[] {
  return text.match(WORD_PATTERN) ?? [];
}

/**
 * A word as the indexes hold it: compatibility forms unified (NFKD: "ﬁ" is "fi", "Ｆ" is "F"),
 * lower-cased, diacritics and any other non-word character dropped ("Café" is "cafe").
 * Empty when nothing is left. Folding a folded word changes nothing.
 */
export function foldWord(word: string): string {
  // Most words are ASCII letters and digits, which only lower-casing changes.
  if (ASCII_WORD.test(word)) return word.toLowerCase();
  return word.normalize("NFKD").toLowerCase().replace(NOT_TOKEN_CHAR, "");
}

function indexable(token: string): boolean {
  return token !== "" && Buffer.byteLength(token) <= MAX_TOKEN_BYTES;
}

/** The tokens of a text, in order: what the index holds for it. */
export function searchTokens(text: string): string[] {
  return words(text).map(foldWord).filter(indexable);
}

/** Parses search operands (joined by spaces, as Zulip does) into terms; empty when no token. */
export function parseSearch(operands: readonly string[]): SearchQuery {
  const joined = operands.join(" ");
  const terms: string[][] = [];
  for (const match of joined.matchAll(/"[^"]+"|\S+/g)) {
    const term = searchTokens(match[0]);
    if (term.length > 0) terms.push(term);
  }
  return { terms };
}

/** Every distinct token of a search, for highlighting. */
export function searchWords(query: SearchQuery): string[] {
  return [...new Set(query.terms.flat())];
}

/** The filter boxes of the Inbox and Recent conversations: every word typed must appear in a row's text. */

/** The lowercased words of a filter box's text. */
export function filterWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter((w) => w !== "");
}

/** Whether every word appears in one of the texts (case-insensitively). */
export function matchesWords(words: readonly string[], texts: readonly string[]): boolean {
  const haystack = texts.join("\n").toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/**
 * Search highlighting for `match_content` / `match_subject`: `<span class="highlight">` around
 * exactly the words of the text that the search matched, as Zulip's ts_headline-based
 * highlighting does. Works on HTML: tags and character references are never split or marked.
 */
import { WORD_PATTERN, foldWord, searchWords, type SearchQuery } from "../model/search-words.ts";

const HIGHLIGHT_START = '<span class="highlight">';
const HIGHLIGHT_STOP = "</span>";

/** Tags, character references and comments: the parts of HTML that are not text. */
const MARKUP = /<!--[\s\S]*?-->|<[^>]*>|&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi;

/** Django's escape(): the HTML-escaped topic Zulip returns in match_subject. */
export function escapeTopic(topic: string): string {
  return topic.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

/** Whether a word of the text, folded as the index folds it, is one of the search's tokens. */
type WordMatcher = (word: string) => boolean;

/** The word matcher of a search. */
export function searchMatcher(query: SearchQuery): WordMatcher {
  const wanted = new Set(searchWords(query));
  return (word) => wanted.has(foldWord(word));
}

function highlightText(text: string, matches: WordMatcher): string {
  return text.replace(WORD_PATTERN, (word) => (matches(word) ? `${HIGHLIGHT_START}${word}${HIGHLIGHT_STOP}` : word));
}

/** HTML with every matching word of its text wrapped in a highlight span. */
export function highlightHtml(html: string, matches: WordMatcher): string {
  let out = "";
  let pos = 0;
  for (const m of html.matchAll(MARKUP)) {
    out += highlightText(html.slice(pos, m.index), matches) + m[0];
    pos = m.index + m[0].length;
  }
  return out + highlightText(html.slice(pos), matches);
}

/** The search fields of one message: highlighted content and escaped, highlighted topic. */
export type SearchFields = { match_content: string; match_subject: string };

/** match_content / match_subject of a message; without a matcher (no search term) nothing is marked. */
export function searchFields(renderedContent: string, topic: string, matches: WordMatcher | null): SearchFields {
  const subject = escapeTopic(topic);
  if (!matches) return { match_content: renderedContent, match_subject: subject };
  return { match_content: highlightHtml(renderedContent, matches), match_subject: highlightHtml(subject, matches) };
}

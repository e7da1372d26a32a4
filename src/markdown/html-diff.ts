/**
 * A word-level diff of two rendered messages for the edit-history call's `content_html_diff`,
 * in the shape upstream's clients style: the new document wrapped in a `<div>`, inserted words
 * in `<span class="highlight_text_inserted">` and removed words in
 * `<span class="highlight_text_deleted">`.
 *
 * Safety: the markup of the output is exactly the new document's tags, in order, plus spans
 * that each wrap one run of text between two tags. Deleted words are emitted as text only
 * (their old tags are dropped), so no tag is ever split, reordered or left unbalanced.
 */

const INSERTED = '<span class="highlight_text_inserted">';
const DELETED = '<span class="highlight_text_deleted">';
const CLOSE = "</span>";

/** Past this many cells the middle of two long documents is shown as wholly replaced. */
const MAX_DIFF_CELLS = 4_000_000;

/** A word of text with the tags before it; `word` keeps its trailing whitespace. */
type Token = { tags: string; word: string; key: string };

/** Splits HTML into tags and text; a tag ends at the first `>` outside a quoted attribute. */
function splitHtml(html: string): Array<{ tag: boolean; text: string }> {
  const parts: Array<{ tag: boolean; text: string }> = [];
  let i = 0;
  while (i < html.length) {
    if (html[i] !== "<") {
      const next = html.indexOf("<", i);
      const end = next < 0 ? html.length : next;
      parts.push({ tag: false, text: html.slice(i, end) });
      i = end;
      continue;
    }
    let j = i + 1;
    let quote = "";
    while (j < html.length && (quote !== "" || html[j] !== ">")) {
      if (quote !== "" && html[j] === quote) quote = "";
      else if (quote === "" && (html[j] === '"' || html[j] === "'")) quote = html[j];
      j += 1;
    }
    parts.push({ tag: true, text: html.slice(i, Math.min(j + 1, html.length)) });
    i = j + 1;
  }
  return parts;
}

/** Words of a document, each carrying the tags that precede it; trailing tags come back apart. */
function tokenize(html: string): { tokens: Token[]; tail: string } {
  const tokens: Token[] = [];
  let tags = "";
  for (const part of splitHtml(html)) {
    if (part.tag) {
      tags += part.text;
      continue;
    }
    // Leading whitespace of a text run belongs to the tags before it (it is structure, not a word).
    const lead = /^\s*/.exec(part.text)?.[0] ?? "";
    tags += lead;
    for (const match of part.text.slice(lead.length).matchAll(/\S+\s*/g)) {
      tokens.push({ tags, word: match[0], key: match[0].trimEnd() });
      tags = "";
    }
  }
  return { tokens, tail: tags };
}

type Op = { kind: "equal" | "insert" | "delete"; token: Token };

/** Longest-common-subsequence edit script between two token lists (common ends trimmed first). */
function diffTokens(a: Token[], b: Token[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start].key === b[start].key) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1].key === b[endB - 1].key) {
    endA -= 1;
    endB -= 1;
  }
  const head: Op[] = b.slice(0, start).map((token) => ({ kind: "equal", token }));
  const tail: Op[] = b.slice(endB).map((token) => ({ kind: "equal", token }));
  return [...head, ...diffMiddle(a.slice(start, endA), b.slice(start, endB)), ...tail];
}

function diffMiddle(a: Token[], b: Token[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_DIFF_CELLS) {
    return [...b.map((token): Op => ({ kind: "insert", token })), ...a.map((token): Op => ({ kind: "delete", token }))];
  }
  // lcs[i * (m + 1) + j]: length of the LCS of a[i..] and b[j..].
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * (m + 1) + j] = a[i].key === b[j].key ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i].key === b[j].key) {
      ops.push({ kind: "equal", token: b[j] });
      i += 1;
      j += 1;
    } else if (j < m && (i === n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j])) {
      ops.push({ kind: "insert", token: b[j] });
      j += 1;
    } else {
      ops.push({ kind: "delete", token: a[i] });
      i += 1;
    }
  }
  return ops;
}

/** A space between two highlighted runs that would otherwise read as one word. */
function separator(before: string, after: string): string {
  return before === "" || /\s$/.test(before) || /^\s/.test(after) ? "" : " ";
}

/**
 * Renders an edit script over the new document. Runs of inserted words become one inserted span
 * per text run; a run of deleted words becomes one deleted span, placed after the tags of the
 * next word of the new document (inside the block it now borders) or before the closing tags.
 */
function renderOps(ops: Op[], tail: string): string {
  let out = "";
  let lastText = "";
  let inserted = "";
  let deleted = "";
  const emitText = (html: string, text: string) => {
    out += separator(lastText, text) + html;
    lastText = text;
  };
  const flushInserted = () => {
    if (inserted !== "") emitText(INSERTED + inserted + CLOSE, inserted);
    inserted = "";
  };
  const flushDeleted = () => {
    if (deleted !== "") emitText(DELETED + deleted + CLOSE, deleted);
    deleted = "";
  };
  for (const op of ops) {
    if (op.kind === "delete") {
      flushInserted();
      deleted += op.token.word;
      continue;
    }
    if (op.token.tags !== "") {
      flushInserted();
      out += op.token.tags;
      lastText = "";
    }
    if (op.kind === "insert") {
      inserted += op.token.word;
      continue;
    }
    flushInserted();
    flushDeleted();
    out += op.token.word;
    lastText = op.token.word;
  }
  flushInserted();
  flushDeleted();
  return out + tail;
}

/** The HTML diff from `before` to `after` (both rendered message HTML), wrapped in a `<div>`. */
export function highlightHtmlDifferences(before: string, after: string): string {
  const old = tokenize(before);
  const current = tokenize(after);
  return `<div>${renderOps(diffTokens(old.tokens, current.tokens), current.tail)}</div>`;
}

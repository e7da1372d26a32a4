// Block rules with upstream's (Python-Markdown) semantics: lists nest by 2 spaces and may
// interrupt paragraphs, a blockquote runs to the next blank line, paragraphs keep trailing
// spaces, and stash placeholder lines become their HTML. Nested content is re-parsed as a
// fresh string, so fences work inside lists and quotes too.
import type { StateBlock, Token } from "markdown-it";
import { envOf, STASH_LINE } from "./env.ts";
import { processFences } from "./fences.ts";

const ITEM = /^( *)([*+-]|\d{1,9}\.)(?:[ \t]+|$)/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const EMPTY_QUOTE = /^ {0,3}>\s*$/;
/** Deeper quotes/lists render their markers as text; keeps recursion bounded. */
const MAX_NESTING = 32;

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line], state.eMarks[line]).replace(/^\t+/, (tabs) => "    ".repeat(tabs.length));
}

function indentOf(text: string): number {
  return text.length - text.trimStart().length;
}

/** Parses `content` (a nested block's text) into state.tokens. */
function parseNested(state: StateBlock, content: string): void {
  const env = envOf(state.env);
  env.depth++;
  try {
    state.md.block.parse(processFences(env, content), state.md, state.env, state.tokens);
  } finally {
    env.depth--;
  }
}

function itemKind(marker: string): "ordered" | "bullet" {
  return /\d/.test(marker) ? "ordered" : "bullet";
}

interface ListScan {
  items: string[][];
  end: number;
  loose: boolean;
}

/** Collects the items of the list starting at startLine (see file comment for the rules). */
function scanList(state: StateBlock, startLine: number, endLine: number, base: number, kind: string): ListScan {
  const first = lineText(state, startLine);
  const items: string[][] = [[first.slice((ITEM.exec(first)?.[0] ?? "").length)]];
  let loose = false;
  let blank = false;
  let lazy = false;
  let line = startLine + 1;
  for (; line < endLine; line++) {
    const text = lineText(state, line);
    const current = items[items.length - 1];
    if (text.trim() === "") {
      blank = true;
      continue;
    }
    const indent = indentOf(text);
    const item = ITEM.exec(text);
    if (item !== null && indent < base + 2 && !HR.test(text)) {
      if (itemKind(item[2]) !== kind) break;
      loose ||= blank || lazy;
      items.push([text.slice(item[0].length)]);
    } else if (indent >= base + 2) {
      if (blank) {
        loose ||= indent < base + 4;
        current.push("");
      }
      current.push(text.slice(base + 2));
    } else if (blank || HR.test(text)) {
      break;
    } else {
      current.push(text.trimStart());
      lazy = true;
      blank = false;
      continue;
    }
    blank = false;
    lazy = false;
  }
  let end = line;
  while (end > startLine && state.isEmpty(end - 1)) end--;
  return { items, end, loose };
}

/** Marks the paragraphs directly inside a tight list item hidden (rendered without <p>). */
function hideParagraphs(tokens: Token[], from: number): void {
  let depth = 0;
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.nesting === -1) depth--;
    if (depth === 0 && (t.type === "paragraph_open" || t.type === "paragraph_close")) t.hidden = true;
    if (t.nesting === 1) depth++;
  }
}

/** List rule: `*`, `-`, `+` or `N.` items; children indented by 2 spaces. */
export function listRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4 || envOf(state.env).depth >= MAX_NESTING) return false;
  const text = lineText(state, startLine);
  const marker = ITEM.exec(text);
  if (marker === null || HR.test(text)) return false;
  if (silent) return true;
  const kind = itemKind(marker[2]);
  const scan = scanList(state, startLine, endLine, marker[1].length, kind);
  const tagName = kind === "ordered" ? "ol" : "ul";
  const open = state.push(kind === "ordered" ? "ordered_list_open" : "bullet_list_open", tagName, 1);
  const start = kind === "ordered" ? Number.parseInt(marker[2], 10) : 1;
  if (start !== 1) open.attrSet("start", String(start));
  for (const item of scan.items) {
    state.push("list_item_open", "li", 1);
    const from = state.tokens.length;
    parseNested(state, item.join("\n"));
    if (!scan.loose) hideParagraphs(state.tokens, from);
    state.push("list_item_close", "li", -1);
  }
  state.push(kind === "ordered" ? "ordered_list_close" : "bullet_list_close", tagName, -1);
  state.line = scan.end;
  return true;
}

/** Blockquote rule: from a `>` line to the next blank line; not a quote if only empty `>` lines. */
export function blockquoteRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4 || envOf(state.env).depth >= MAX_NESTING) return false;
  if (!/^ {0,3}>/.test(lineText(state, startLine))) return false;
  let end = startLine;
  while (end < endLine && !state.isEmpty(end)) end++;
  const lines: string[] = [];
  for (let line = startLine; line < end; line++) lines.push(lineText(state, line));
  if (lines.every((l) => EMPTY_QUOTE.test(l))) return false;
  if (silent) return true;
  state.push("blockquote_open", "blockquote", 1);
  parseNested(state, lines.map((l) => l.replace(/^ {0,3}> ?/, "")).join("\n"));
  state.push("blockquote_close", "blockquote", -1);
  state.line = end;
  return true;
}

/** Paragraph rule keeping trailing spaces; any paragraph-interrupting rule ends it. */
export function paragraphRule(state: StateBlock, startLine: number, endLine: number): boolean {
  const terminators = state.md.block.ruler.getRules("paragraph");
  let next = startLine + 1;
  for (; next < endLine && !state.isEmpty(next); next++) {
    if (state.sCount[next] - state.blkIndent > 3) continue;
    if (terminators.some((rule) => rule(state, next, endLine, true))) break;
  }
  const content = state.getLines(startLine, next, state.blkIndent, false).replace(/^\s+/, "");
  state.line = next;
  state.push("paragraph_open", "p", 1).map = [startLine, next];
  const inline = state.push("inline", "", 0);
  inline.content = content;
  inline.map = [startLine, next];
  inline.children = [];
  state.push("paragraph_close", "p", -1);
  return true;
}

/** A placeholder line becomes its stashed HTML block. */
export function stashRule(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  const m = STASH_LINE.exec(lineText(state, startLine).trim());
  if (m === null) return false;
  if (silent) return true;
  const token = state.push("zulip_block", "", 0);
  token.content = envOf(state.env).stash[Number(m[1])] ?? "";
  state.line = startLine + 1;
  return true;
}

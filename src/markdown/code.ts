// Code blocks as upstream renders them: <div class="codehilite" data-code-language="..."><pre>...,
// highlighted with Pygments' token classes where we know the language (markdown/highlight.ts).
import { codeLanguageName, codeLanguageProfile } from "./code-languages.ts";
import { escapeCode, tag } from "./escape.ts";
import { highlightPieces, type Piece } from "./highlight.ts";

/**
 * How much code (in characters) one message may have highlighted, unless the render context says
 * otherwise (`HIGHLIGHT_MAX_CHARS`); blocks past it stay plain. Real code takes Prism about 1 ms
 * per 1,000 characters, but some grammars are quadratic on crafted input (4,000 characters of one
 * repeated character took up to 250 ms, and 8,000 up to 670 ms), so the bound is on the total.
 */
export const DEFAULT_HIGHLIGHT_MAX_CHARS = 4000;

/**
 * The first line of an untagged fenced block may name its language, as upstream's CodeHilite
 * reads it: `#!python`, `#!/usr/bin/env python`, `:::python`. Upstream keeps that line (it turned
 * off Python-Markdown's hiding of it) and highlights without a data-code-language.
 */
const FIRST_LINE_LANGUAGE = /^(?:::+|#!)(?:(?:\/[\p{L}\p{N}_]+)*[/ ])?([\p{L}\p{N}_#.+-]*)/u;

/** How a block is highlighted. */
export interface CodeBlockOptions {
  /** Read the first line for a language when the fence names none (fenced blocks, not indented ones). */
  firstLineLanguage: boolean;
  /** Characters of code the message may still have highlighted; a block highlighted pays for itself. */
  highlightBudget: { chars: number };
}

/**
 * Trailing whitespace per line dropped, leading and trailing blank lines dropped. (trimEnd, not
 * /\s+$/: that regex retries from every whitespace character, quadratic on a long run of them.)
 */
function normalizeCode(text: string): string {
  const lines = text.split("\n").map((l) => l.trimEnd());
  let first = 0;
  let end = lines.length;
  while (first < end && lines[first] === "") first++;
  while (end > first && lines[end - 1] === "") end--;
  return lines.slice(first, end).join("\n");
}

/** The language to highlight `code` as: the fence's, or one its first line names. */
function highlightLanguage(code: string, lang: string, options: CodeBlockOptions): string {
  if (lang !== "" || !options.firstLineLanguage) return lang;
  const newline = code.indexOf("\n");
  return FIRST_LINE_LANGUAGE.exec(newline === -1 ? code : code.slice(0, newline))?.[1].toLowerCase() ?? "";
}

/** Pieces of `code` with their Pygments classes, or null to leave it plain. */
function highlighted(code: string, lang: string, budget: { chars: number }): Piece[] | null {
  const profile = codeLanguageProfile(lang);
  if (profile === null || code.length > budget.chars) return null;
  budget.chars -= code.length;
  try {
    return highlightPieces(code, profile);
  } catch {
    // Upstream, too, falls back to the plain block when its highlighter fails.
    return null;
  }
}

/** HTML of pieces as Pygments writes it: a span per class and line, plain text bare. */
function piecesHtml(pieces: readonly Piece[], hasLanguage: boolean): string {
  let html = "";
  for (const [cls, text] of pieces) {
    if (cls === "") html += escapeCode(text, hasLanguage);
    else if (!text.includes("\n")) html += `<span class="${cls}">${escapeCode(text, hasLanguage)}</span>`;
    else html += text.split("\n").map((line) => (line === "" ? "" : `<span class="${cls}">${escapeCode(line, hasLanguage)}</span>`)).join("\n");
  }
  return html;
}

/** HTML of a code block (ends with a newline, like every block). */
export function codeBlockHtml(rawCode: string, lang: string, options: CodeBlockOptions): string {
  const code = normalizeCode(rawCode);
  const hasLanguage = lang !== "";
  const pieces = highlighted(code, highlightLanguage(code, lang, options), options.highlightBudget);
  const inner = pieces === null ? escapeCode(code, hasLanguage) : piecesHtml(pieces, hasLanguage);
  const body = `<pre><span></span><code>${inner}\n</code></pre>`;
  return `${tag("div", [["class", "codehilite"], ["data-code-language", hasLanguage ? codeLanguageName(lang) : null]], body)}\n`;
}

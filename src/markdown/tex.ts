// Math: `$$inline$$` and ```math blocks. Real typesetting needs a TeX renderer (KaTeX) passed in
// the context; without one, math shows as its escaped source in upstream's error markup.
import { escapePython, escapeText, tag } from "./escape.ts";
import type { RenderContext } from "./types.ts";

/** HTML for inline math (the `$$` delimiters are part of the error text, as upstream). */
export function inlineTexHtml(ctx: RenderContext, body: string): string {
  const rendered = ctx.renderTex?.(body, false) ?? null;
  return rendered ?? tag("span", [["class", "tex-error"]], escapeText(`$$${body}$$`));
}

/** HTML for a ```math block: one display paragraph (newline-terminated). */
export function displayTexHtml(ctx: RenderContext, body: string): string {
  // Leading and trailing newlines dropped by hand: /\n+$/ would retry at every newline of a run.
  let start = 0;
  let end = body.length;
  while (start < end && body[start] === "\n") start++;
  while (end > start && body[end - 1] === "\n") end--;
  const source = body.slice(start, end);
  const rendered = ctx.renderTex?.(source, true) ?? null;
  const inner = rendered === null ? tag("span", [["class", "tex-error"]], escapePython(source)) : tag("span", [["class", "katex-display"]], rendered);
  return `<p>${inner}</p>\n`;
}

// Math: `$$inline$$` and ```math blocks, typeset by KaTeX (katex.ts, or a renderer the context
// passes); what cannot be typeset shows as its escaped source in upstream's error markup.
import { escapePython, escapeText, tag } from "./escape.ts";
import type { RenderEnv } from "./env.ts";
import { katexHtml } from "./katex.ts";

/**
 * How much TeX one message may have typeset, in source characters plus TEX_COST_PER_FORMULA for
 * each formula: KaTeX's work grows with both (a 10,000-character formula took ~370 ms and
 * printed 1.6 MB; 1,600 one-letter formulas ~210 ms), and a message's rendering must stay cheap
 * for everyone. Formulas past it show as upstream's tex-error markup.
 */
export const TEX_BUDGET_PER_MESSAGE = 2000;
const TEX_COST_PER_FORMULA = 20;

/** Typesets `tex` if the rendering's budget allows it (paying for it), else null. */
function typeset(env: RenderEnv, tex: string, displayMode: boolean): string | null {
  const cost = tex.length + TEX_COST_PER_FORMULA;
  if (cost > env.texBudget) return null;
  env.texBudget -= cost;
  return (env.ctx.renderTex ?? katexHtml)(tex, displayMode);
}

/** HTML for inline math (the `$$` delimiters are part of the error text, as upstream). */
export function inlineTexHtml(env: RenderEnv, body: string): string {
  const rendered = typeset(env, body, false);
  return rendered ?? tag("span", [["class", "tex-error"]], escapeText(`$$${body}$$`));
}

/** HTML for a ```math block: one display paragraph (newline-terminated). */
export function displayTexHtml(env: RenderEnv, body: string): string {
  // Leading and trailing newlines dropped by hand: /\n+$/ would retry at every newline of a run.
  let start = 0;
  let end = body.length;
  while (start < end && body[start] === "\n") start++;
  while (end > start && body[end - 1] === "\n") end--;
  const source = body.slice(start, end);
  const rendered = typeset(env, source, true);
  // KaTeX's display output is already wrapped in its katex-display span.
  const inner = rendered ?? tag("span", [["class", "tex-error"]], escapePython(source));
  return `<p>${inner}</p>\n`;
}

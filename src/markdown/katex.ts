/**
 * TeX typeset by KaTeX, as upstream renders `$$...$$` and ```math server-side (zerver/lib/tex.py
 * runs KaTeX too). The version is pinned to the newest whose HTML matches upstream's Markdown
 * corpus (0.16.32 and later group and kern some letters, and print some margins, differently).
 * User text never becomes raw HTML: KaTeX escapes what it prints, `trust` stays off (no \href,
 * \url, \includegraphics or \htmlClass), and macro expansion is bounded, so a hostile formula
 * ends in an error, which the caller shows as upstream's tex-error markup.
 */
import katex from "katex";

/** KaTeX's own default bound on macro expansions, stated so it cannot change under us. */
const MAX_EXPAND = 1000;
/** The largest size (em) a formula may ask for with \rule or \kern-like commands. */
const MAX_SIZE_EM = 100;

/** HTML for `tex` (display or inline), or null when KaTeX cannot typeset it. */
export function katexHtml(tex: string, displayMode: boolean): string | null {
  try {
    return katex.renderToString(tex, { displayMode, throwOnError: true, trust: false, strict: "ignore", maxExpand: MAX_EXPAND, maxSize: MAX_SIZE_EM, output: "htmlAndMathml" });
  } catch {
    // A parse error, an expansion past the bound, or input so deeply nested that it overflows
    // the stack: all mean "not TeX we can typeset".
    return null;
  }
}

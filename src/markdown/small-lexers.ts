// Languages whose Pygments lexers are a handful of rules, lexed here directly rather than through
// a Prism grammar that splits them differently: TeX (commands, braces, math) and unified diffs.
// Each returns Pygments-classed pieces; every pattern is a single character class or a literal
// choice, so the work is linear in the code's length.
import type { Piece } from "./highlight.ts";

type Pieces = Array<[string, string]>;

function push(out: Pieces, cls: string, text: string): void {
  if (text === "") return;
  const last = out[out.length - 1];
  if (last !== undefined && last[0] === cls) last[1] += text;
  else out.push([cls, text]);
}

/** TeX outside math: commands (k) with their [options] (na) and star, braces and &_^ (nb), % comments (c). */
const TEX_TEXT = /\\\[|\\\(|\$\$|\$|\\(?:[a-zA-Z]+|[^])|%[^\n]*\n?|[{}&_^]|[^\\$%&_^{}]+|\\/y;
/** TeX in math: commands are variables (nv), digits numbers (m), operators (o), the rest builtins (nb). */
const TEX_MATH = /\\\)|\\\]|\$\$|\$|\\(?:[a-zA-Z]+|[^])|%[^\n]*\n?|[{}&_^]|[0-9]+|[-=!+*/()[\]]|[^=!+*/()[\]\\$%&_^{}0-9-]+|\\/y;
const COMMAND_OPTIONS = /\[[^\]\n]*\]|\*/y;

/** Pieces of TeX, as Pygments' TeX lexer classes them. */
export function texPieces(code: string): Piece[] {
  const out: Pieces = [];
  /** The math mode we are in and the delimiter that ends it, or null outside math. */
  let math: { end: string; display: boolean } | null = null;
  let at = 0;
  while (at < code.length) {
    const pattern: RegExp = math === null ? TEX_TEXT : TEX_MATH;
    pattern.lastIndex = at;
    let token: string = pattern.exec(code)?.[0] ?? code[at];
    // Inline math ends at the first "$", even of "$$".
    if (math !== null && !math.display && token === "$$") token = "$";
    at += token.length;
    if (math === null) {
      if (token === "\\[" || token === "$$") {
        push(out, "sb", token);
        math = { end: token === "\\[" ? "\\]" : "$$", display: true };
      } else if (token === "\\(" || token === "$") {
        push(out, "s", token);
        math = { end: token === "\\(" ? "\\)" : "$", display: false };
      } else if (token.startsWith("\\")) {
        push(out, "k", token);
        for (;;) {
          COMMAND_OPTIONS.lastIndex = at;
          const option = COMMAND_OPTIONS.exec(code)?.[0];
          if (option === undefined) break;
          push(out, option === "*" ? "k" : "na", option);
          at += option.length;
        }
      } else if (token.startsWith("%")) push(out, "c", token);
      else if (/^[{}&_^]$/.test(token)) push(out, "nb", token);
      else push(out, "", token);
      continue;
    }
    const closes = token === math.end || (!math.display && (token === "$" || token === "\\)")) || (math.display && (token === "\\]" || token === "$$"));
    if (closes) {
      push(out, "s", token);
      math = null;
    } else if (token === "$") push(out, "nb", token);
    else if (token.startsWith("\\")) push(out, "nv", token);
    else if (token.startsWith("%")) push(out, "c", token);
    else if (/^[0-9]/.test(token)) push(out, "m", token);
    else if (/^[-=!+*/()[\]]$/.test(token)) push(out, "o", token);
    else push(out, "nb", token);
  }
  return out;
}

/** Pieces of a diff, as Pygments' diff lexer classes its lines by their first character (other lines are Whitespace to it). */
export function diffPieces(code: string): Piece[] {
  const out: Pieces = [];
  const lines = code.split("\n");
  lines.forEach((line, i) => {
    if (i > 0) push(out, "", "\n");
    if (line.startsWith(" ")) {
      push(out, "w", " ");
      push(out, "", line.slice(1));
    } else if (line.startsWith("+")) push(out, "gi", line);
    else if (line.startsWith("-")) push(out, "gd", line);
    else if (line.startsWith("!")) push(out, "gs", line);
    else if (line.startsWith("@")) push(out, "gu", line);
    else if (/^(?:[Ii]ndex|diff|=)/.test(line)) push(out, "gh", line);
    else push(out, "w", line);
  });
  return out;
}

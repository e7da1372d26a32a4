/**
 * Checks of linkifier patterns. Patterns use Python syntax with `(?P<name>...)` groups; they are
 * refused unless they compile with the renderer's flags and avoid catastrophic backtracking
 * (upstream runs them on RE2, which cannot backtrack; our renderer uses JavaScript RegExp).
 */
import { JsonableError } from "../errors.ts";
import { pythonPatternToJs } from "./linkifiers.ts";

/** Repetition bound RE2 accepts; larger counts are refused as it refuses them. */
const MAX_REPEAT = 1000;

const QUANTIFIER = /^(?:[*+?]|\{(\d+)(?:(,)(\d*))?\})/;

/** What a parsed group tells the repetition around it. */
type GroupInfo = { start: number; names: string[]; repeats: boolean; firsts: Array<string | null>; altStart: boolean };

function newGroup(start: number): GroupInfo {
  return { start, names: [], repeats: false, firsts: [], altStart: true };
}

/** The end of a `[...]` class starting at `i`, or -1 when it is not closed. */
function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === "^") j++;
  if (pattern[j] === "]") j++;
  while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
  return j < pattern.length ? j : -1;
}

/** Reads one atom at `i`: its end, its first literal character (null if not a plain character), and its group if any. */
function readAtom(pattern: string, i: number, stack: GroupInfo[], bad: (d: string) => JsonableError): { end: number; first: string | null; opens: boolean } {
  const c = pattern[i];
  if (c === "\\") {
    const n = pattern[i + 1];
    if (n === undefined) throw bad(`trailing \\: ${pattern}`);
    if (/[1-9]/.test(n)) throw bad(`invalid escape sequence: \\${n}`);
    return { end: i + 2, first: /[A-Za-z0-9]/.test(n) ? null : n, opens: false };
  }
  if (c === "[") {
    const end = classEnd(pattern, i);
    if (end === -1) throw bad(`missing ]: ${pattern.slice(i)}`);
    return { end: end + 1, first: null, opens: false };
  }
  if (c === "(") {
    const named = /^\(\?P<([^>]*)>/.exec(pattern.slice(i));
    const group = newGroup(i);
    if (named) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(named[1])) throw bad(`invalid named capture group: ${named[0]}`);
      group.names.push(named[1]);
      stack.push(group);
      return { end: i + named[0].length, first: null, opens: true };
    }
    if (pattern.startsWith("(?:", i) || !pattern.startsWith("(?", i)) {
      stack.push(group);
      return { end: i + (pattern.startsWith("(?:", i) ? 3 : 1), first: null, opens: true };
    }
    throw bad(`invalid or unsupported Perl syntax: ${pattern.slice(i, i + 3)}`);
  }
  if ("*+?".includes(c) || QUANTIFIER.test(pattern.slice(i))) throw bad(`missing argument to repetition operator: ${c}`);
  return { end: i + 1, first: c === "." ? null : c, opens: false };
}

/** Reads a quantifier at `i` (with its lazy mark): its end and whether it is unbounded, or null for none. */
function readQuantifier(pattern: string, i: number, bad: (d: string) => JsonableError): { end: number; unbounded: boolean } | null {
  const m = QUANTIFIER.exec(pattern.slice(i));
  if (m === null) return null;
  if (Number(m[1] ?? 0) > MAX_REPEAT || Number(m[3] || 0) > MAX_REPEAT) throw bad(`bad repetition operator: ${m[0]}`);
  let end = i + m[0].length;
  if (pattern[end] === "?") end++;
  if (QUANTIFIER.test(pattern.slice(end))) throw bad(`bad repetition operator: ${pattern.slice(i).match(/^[*+?]+/)?.[0] ?? pattern.slice(i, end + 1)}`);
  return { end, unbounded: m[0] === "*" || m[0] === "+" || (m[2] === "," && m[3] === "") };
}

/** Whether the alternatives of a group could match the same text (their first characters are not all distinct literals). */
function alternativesOverlap(g: GroupInfo): boolean {
  if (g.firsts.length < 2) return false;
  return g.firsts.some((f) => f === null) || new Set(g.firsts).size < g.firsts.length;
}

/**
 * Parses a Python-syntax pattern far enough to refuse what RE2 refuses (backreferences,
 * lookaround, unbalanced groups, bad repetitions) and what would backtrack catastrophically
 * in a backtracking engine: a repeated group that itself repeats, or whose alternatives overlap.
 * Returns the named groups.
 */
function checkPatternSafety(pattern: string, bad: (d: string) => JsonableError): string[] {
  const stack: GroupInfo[] = [newGroup(0)];
  let i = 0;
  while (i < pattern.length) {
    const top = stack[stack.length - 1];
    const c = pattern[i];
    if (c === "|") {
      top.altStart = true;
      i++;
      continue;
    }
    let closed: GroupInfo | null = null;
    let first: string | null = null;
    if (c === ")") {
      if (stack.length === 1) throw bad(`unexpected ): ${pattern}`);
      closed = stack.pop() ?? null;
      i++;
    } else {
      const atom = readAtom(pattern, i, stack, bad);
      i = atom.end;
      first = atom.first;
      if (atom.opens) continue;
    }
    const owner = stack[stack.length - 1];
    if (owner.altStart) {
      owner.firsts.push(closed ? null : first);
      owner.altStart = false;
    }
    const q = readQuantifier(pattern, i, bad);
    if (closed && q?.unbounded && (closed.repeats || alternativesOverlap(closed))) {
      throw bad(`nested repetition can backtrack catastrophically: ${pattern.slice(closed.start, q.end)}`);
    }
    if (q) i = q.end;
    owner.repeats ||= Boolean(q?.unbounded) || Boolean(closed?.repeats);
    if (closed) owner.names.push(...closed.names);
  }
  if (stack.length > 1) throw bad(`missing ): ${pattern}`);
  return stack[0].names;
}

function badRegex(detail: string): JsonableError {
  return new JsonableError(`Bad regular expression: ${detail}`);
}

/** The pattern's named groups, after checking that it is a safe, valid regular expression. */
export function checkLinkifierPattern(pattern: string): string[] {
  const groups = checkPatternSafety(pattern, badRegex);
  try {
    // The renderer's flags (markdown/linkifiers.ts): a pattern that compiles here runs there.
    new RegExp(pythonPatternToJs(pattern), "gu");
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "") : "invalid pattern";
    throw badRegex(`${reason}: ${pattern}`);
  }
  return groups;
}

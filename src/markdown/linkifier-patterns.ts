/**
 * Linkifier patterns, compiled as upstream compiles them: with RE2's syntax and semantics (here
 * the re2js port), so matching takes linear time whatever the pattern. A pattern is refused when
 * RE2 refuses it, with RE2's own wording after Zulip's "Bad regular expression: ". Named groups
 * may be written `(?P<name>...)` or `(?<name>...)`; names follow RE2's rules (Unicode letters,
 * digits and connectors, a name used twice names its first group).
 */
import { RE2JS, RE2JSSyntaxException } from "re2js";
import { JsonableError } from "../errors.ts";

/** Longest pattern accepted, checked before anything else so a huge one costs nothing. */
export const MAX_PATTERN_LENGTH = 1000;

/**
 * Largest compiled program accepted (RE2 instructions), refused with RE2's own message for a
 * program over its memory bound. Upstream's bound allows ~87,000; here a search's cost grows with
 * the program (markdown/linkifiers.ts bounds a rendering's work in characters times
 * instructions), and 500 covers realistic patterns: `#(?P<id>[0-9]+)` has 7, `[0-9a-f]{40}` 42,
 * forty alternatives of six letters ~300.
 */
export const MAX_PROGRAM_SIZE = 500;

/** A pattern ready to wrap and run: RE2 syntax with plain capturing groups, and its group names. */
export interface ParsedPattern {
  /** The pattern with every named group turned into a plain capturing group. */
  source: string;
  /** Each group name and the number of its first group (1 = the pattern's first group). */
  groups: ReadonlyMap<string, number>;
}

/** RE2's valid capture names: letters, marks, digits, letter numbers and connector punctuation. */
const CAPTURE_NAME = /^[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]+$/u;

/** A named group's opening at lastIndex (not a look-behind, which RE2 refuses). */
const NAMED_GROUP = /\(\?P?<([^>=!][^>]*)>/y;

/** re2js (Go's wording) to RE2's error texts, which upstream shows. */
const RE2_WORDING: Record<string, string> = {
  "missing closing )": "missing )",
  "unexpected )": "unexpected )",
  "missing closing ]": "missing ]",
  "invalid nested repetition operator": "bad repetition operator",
  "missing argument to repetition operator": "no argument for repetition operator",
  "invalid repeat count": "invalid repetition size",
  "invalid or unsupported Perl syntax": "invalid perl operator",
  "invalid named capture": "invalid named capture group",
  "trailing backslash at end of expression": "trailing \\",
  "invalid escape sequence": "invalid escape sequence",
  "invalid character class": "invalid character class",
  "invalid character class range": "invalid character class range",
  "invalid UTF-8": "invalid UTF-8",
};

/** End (exclusive) of the character class opening at `i`, following RE2's parser; pattern.length if unclosed. */
function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === "^") j++;
  // A "]" right after "[" or "[^" is a literal.
  if (pattern[j] === "]") j++;
  while (j < pattern.length && pattern[j] !== "]") {
    if (pattern[j] === "\\") j += 2;
    else if (pattern.startsWith("[:", j) && pattern.indexOf(":]", j + 2) !== -1) j = pattern.indexOf(":]", j + 2) + 2;
    else j++;
  }
  return Math.min(pattern.length, j + 1);
}

/**
 * Turns `(?P<name>` and `(?<name>` into `(`, numbering every capturing group, so names RE2
 * allows and re2js does not (non-ASCII, repeated) work as upstream. Names RE2 refuses stay, so
 * compiling reports them where RE2 would. One pass over the pattern.
 */
function plainGroups(pattern: string): ParsedPattern {
  const groups = new Map<string, number>();
  let out = "";
  let count = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    let next = i + 1;
    if (c === "\\") {
      const quoted = pattern[i + 1] === "Q" ? pattern.indexOf("\\E", i + 2) : -2;
      next = quoted === -2 ? i + 2 : quoted === -1 ? pattern.length : quoted + 2;
    } else if (c === "[") {
      next = classEnd(pattern, i);
    } else if (c === "(") {
      NAMED_GROUP.lastIndex = i;
      const named = NAMED_GROUP.exec(pattern);
      if (named === null && pattern[i + 1] !== "?") count++;
      if (named !== null && CAPTURE_NAME.test(named[1])) {
        count++;
        if (!groups.has(named[1])) groups.set(named[1], count);
        out += "(";
        i += named[0].length;
        continue;
      }
    }
    out += pattern.slice(i, next);
    i = next;
  }
  return { source: out, groups };
}

/** Zulip's message for a pattern RE2 refuses, from re2js's error. */
function badRegex(error: unknown, pattern: string, source: string): string {
  if (!(error instanceof RE2JSSyntaxException)) return "Unknown regular expression error";
  const arg = error.getPattern();
  // RE2 refuses look-behinds as Perl operators ("(?<=", "(?<!"); re2js as bad group names.
  if (arg !== null && /^\(\?<[=!]/.test(arg)) return `Bad regular expression: invalid perl operator: ${arg.slice(0, 4)}`;
  const code = RE2_WORDING[error.getDescription()] ?? error.getDescription();
  // RE2 quotes the whole pattern for unbalanced parentheses: the one the administrator wrote.
  const shown = arg === source ? pattern : arg;
  return `Bad regular expression: ${code}${shown === null || code === "trailing \\" ? "" : `: ${shown}`}`;
}

/** The compiled form of a pattern, or the message refusing it (patterns longer than the limit included). */
export function parseLinkifierPattern(pattern: string): ParsedPattern | { error: string } {
  const tooLong = patternLengthError(pattern);
  if (tooLong !== null) return { error: tooLong };
  const parsed = plainGroups(pattern);
  let size: number;
  try {
    size = RE2JS.compile(parsed.source).programSize();
  } catch (error) {
    return { error: badRegex(error, pattern, parsed.source) };
  }
  if (size > MAX_PROGRAM_SIZE) return { error: "Bad regular expression: pattern too large - compile failed" };
  return parsed;
}

/**
 * Django's max_length message when the pattern is longer than MAX_PATTERN_LENGTH, else null.
 * Counted in code points, as Python's len counts; a UTF-16 length within the limit is enough.
 */
export function patternLengthError(pattern: string): string | null {
  if (pattern.length <= MAX_PATTERN_LENGTH) return null;
  const count = codePoints(pattern);
  return count > MAX_PATTERN_LENGTH ? `Ensure this value has at most ${MAX_PATTERN_LENGTH} characters (it has ${count}).` : null;
}

/** The number of code points in `text` (a low surrogate after a high one is not counted again). */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 1; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const before = text.charCodeAt(i - 1);
    if (unit >= 0xdc00 && unit <= 0xdfff && before >= 0xd800 && before <= 0xdbff) count--;
  }
  return count;
}

/** The pattern's group names, after checking it as upstream does (RE2 compiles it); throws Zulip's error. */
export function checkLinkifierPattern(pattern: string): string[] {
  const parsed = parseLinkifierPattern(pattern);
  if ("error" in parsed) throw new JsonableError(parsed.error);
  return [...parsed.groups.keys()];
}

// Realm linkifiers: an RE2 pattern with named groups and an RFC 6570 URL template. As upstream,
// a match must start at the text's start, after whitespace or one of '"(,:< and must not run into
// a following letter, digit or "_"; upstream's RE2 makes matching linear in the text, and so does
// re2js here. Bounds on each search and on each rendering keep hostile patterns cheap (see
// WINDOW, LINKIFIER_WORK_UNITS and MAX_LINKIFIER_MATCHES).
import { RE2JS, type Matcher } from "re2js";
import type { FoundLink } from "./autolink.ts";
import { parseLinkifierPattern } from "./linkifier-patterns.ts";
import type { Linkifier } from "./types.ts";
import { safeUrl } from "./urls.ts";

/**
 * Characters one search reads. Leftmost-first matching may read ahead past a match (for
 * `a(?:.*b)?`, to the end of the text) before settling on it, so finding every match of such a
 * pattern reads the text once per match; bounding each search to a window keeps the total linear.
 * A search after a match reads WINDOW characters; after a search that found nothing, where the
 * next match is likely far, WIDE_WINDOW. Consecutive windows overlap by OVERLAP, so any match of
 * up to OVERLAP characters is found wherever it lies (longer ones up to the window's size).
 */
const WINDOW = 256;
const WIDE_WINDOW = 1024;
const OVERLAP = 128;

/**
 * Work all linkifiers may do in one rendering, in characters searched times program size (the
 * most a search can cost; realistic patterns cost far less per unit, hostile ones up to ~5 ns on
 * this project's machines). Past it the rest of the message is not linkified. Counted, not timed,
 * so a message renders the same however busy the server is. Scanning a 10,000-character message
 * for a 20-instruction pattern uses ~230,000; 500 matches of `#(?P<id>[0-9]+)` ~1,200,000.
 */
export const LINKIFIER_WORK_UNITS = 6_000_000;

/** Linkifier matches one rendering may produce; each becomes tokens and HTML, so they are bounded too. */
export const MAX_LINKIFIER_MATCHES = 500;

/** What linkifiers may still do in one rendering, shared by its calls of findLinkifierLinks. */
export interface LinkifierBudget {
  units: number;
  matches: number;
}

/** A fresh budget for one rendering (or one topic). */
export function linkifierBudget(): LinkifierBudget {
  return { units: LINKIFIER_WORK_UNITS, matches: MAX_LINKIFIER_MATCHES };
}

// Upstream's boundary before a match: ^|\s|\x85|\pZ|['"\(,:<] (RE2's \s is \t\n\f\r and space).
const BEFORE = `[\\t\\n\\f\\r \\x{85}\\p{Z}'"(,:<]`;
const AFTER = `[^\\p{L}\\p{N}_]`;

/** A pattern compiled for matching: its groups and its four wrappings. */
interface Compiled {
  source: string;
  /** Instructions of the largest wrapping: what one character of a search may cost. */
  size: number;
  groups: ReadonlyMap<string, number>;
  /** Indexed by (may start at the text's start ? 1 : 0) + (may end at the text's end ? 2 : 0). */
  wrapped: Array<RE2JS | null | undefined>;
}

/** Patterns seen lately (they are few: the realms' linkifiers); bounded so edits don't pile up. */
const compiledCache = new Map<string, Compiled | null>();
const MAX_CACHED_PATTERNS = 1000;

function compile(pattern: string): Compiled | null {
  const cached = compiledCache.get(pattern);
  if (cached !== undefined) return cached;
  const parsed = parseLinkifierPattern(pattern);
  // Patterns saved before they were checked as now, and refused now, match nothing (as upstream).
  const compiled: Compiled | null = "error" in parsed ? null : { source: parsed.source, size: 0, groups: parsed.groups, wrapped: [] };
  if (compiled !== null) compiled.size = wrapped(compiled, true, true)?.programSize() ?? 0;
  if (compiledCache.size >= MAX_CACHED_PATTERNS) compiledCache.clear();
  compiledCache.set(pattern, compiled);
  return compiled;
}

/**
 * The pattern between its boundaries, outer group first. Each search sees only a window of the
 * text, so `^` and `$` are offered only where the window starts or ends with the text.
 */
function wrapped(c: Compiled, atStart: boolean, atEnd: boolean): RE2JS | null {
  const index = (atStart ? 1 : 0) + (atEnd ? 2 : 0);
  let re = c.wrapped[index];
  if (re === undefined) {
    const before = atStart ? `(?:^|${BEFORE})` : BEFORE;
    const after = atEnd ? `(?:$|${AFTER})` : AFTER;
    try {
      re = RE2JS.compile(`${before}(${c.source})${after}`);
    } catch {
      // A pattern valid alone may not be once wrapped (an unterminated \Q...): it matches nothing.
      re = null;
    }
    c.wrapped[index] = re;
  }
  return re;
}

/** One match: the outer group's span and the named groups' values. */
interface Match {
  start: number;
  end: number;
  vars: Record<string, string | undefined>;
}

function groupValues(c: Compiled, m: Matcher): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = {};
  for (const [name, index] of c.groups) vars[name] = m.group(index + 1) ?? undefined;
  return vars;
}

function isSurrogatePair(text: string, i: number): boolean {
  const high = text.charCodeAt(i);
  const low = text.charCodeAt(i + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/**
 * The pattern's non-overlapping matches in `text`, left to right, each looked for in a window
 * starting at the boundary character before it, each search paid from `budget`; false when the
 * budget ran out first.
 */
function findMatches(c: Compiled, text: string, budget: LinkifierBudget, out: Match[]): boolean {
  const n = text.length;
  // `from`: where the boundary character may be; `minStart`: where the next match may start.
  let from = 0;
  let minStart = 0;
  let width = WIDE_WINDOW;
  while (from < n) {
    let to = Math.min(n, from + width);
    if (to < n && isSurrogatePair(text, to - 1)) to--;
    const cost = (to - from) * c.size;
    if (cost > budget.units || budget.matches === 0) return false;
    budget.units -= cost;
    const re = wrapped(c, from === 0 && minStart === 0, to === n);
    if (re === null) return true;
    const m = re.matcher(text.slice(from, to));
    if (!m.find()) {
      if (to === n) return true;
      from = to - OVERLAP;
      width = WIDE_WINDOW;
      continue;
    }
    const start = from + m.start(1);
    const end = from + m.end(1);
    if (end > start) {
      out.push({ start, end, vars: groupValues(c, m) });
      budget.matches--;
    }
    minStart = end > start ? end : start + 1;
    from = minStart - 1;
    width = WINDOW;
  }
  return true;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encodeValue(value: string, allowReserved: boolean): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (UNRESERVED.test(c) || (allowReserved && (RESERVED.test(c) || (c === "%" && /^%[0-9A-Fa-f]{2}/.test(value.slice(i)))))) out += c;
    else out += encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

const OPERATORS: Record<string, { prefix: string; sep: string; named: boolean; reserved: boolean; ifEmpty: string }> = {
  "": { prefix: "", sep: ",", named: false, reserved: false, ifEmpty: "" },
  "+": { prefix: "", sep: ",", named: false, reserved: true, ifEmpty: "" },
  "#": { prefix: "#", sep: ",", named: false, reserved: true, ifEmpty: "" },
  ".": { prefix: ".", sep: ".", named: false, reserved: false, ifEmpty: "" },
  "/": { prefix: "/", sep: "/", named: false, reserved: false, ifEmpty: "" },
  ";": { prefix: ";", sep: ";", named: true, reserved: false, ifEmpty: "" },
  "?": { prefix: "?", sep: "&", named: true, reserved: false, ifEmpty: "=" },
  "&": { prefix: "&", sep: "&", named: true, reserved: false, ifEmpty: "=" },
};

/** Expands an RFC 6570 (level 3, plus prefix modifiers) URL template. */
function expandUrlTemplate(template: string, vars: Readonly<Record<string, string | undefined>>): string {
  return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_whole, op: string, list: string) => {
    const spec = OPERATORS[op] ?? OPERATORS[""];
    const parts: string[] = [];
    for (const varspec of list.split(",")) {
      const m = /^([A-Za-z0-9_.%]+)(?::(\d+)|\*)?$/.exec(varspec);
      const raw = m === null ? undefined : vars[m[1]];
      if (m === null || raw === undefined) continue;
      const value = m[2] === undefined ? raw : [...raw].slice(0, Number(m[2])).join("");
      const encoded = encodeValue(value, spec.reserved);
      parts.push(spec.named ? (encoded === "" ? `${m[1]}${spec.ifEmpty}` : `${m[1]}=${encoded}`) : encoded);
    }
    return parts.length === 0 ? "" : spec.prefix + parts.join(spec.sep);
  });
}

/** Whether [start, end) overlaps one of `sorted` (disjoint spans in order). Binary search. */
export function overlapsAny(sorted: readonly FoundLink[], start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  // The first span starting at or after `end`; the one before it is the only candidate.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start < end) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && sorted[lo - 1].end > start;
}

function mergeByStart(a: readonly FoundLink[], b: readonly FoundLink[]): FoundLink[] {
  const out: FoundLink[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i].start < b[j].start) ? a[i++] : b[j++]);
  return out;
}

/**
 * Linkifier matches in `text`, in order, earlier linkifiers winning overlaps; hrefs are safe URLs.
 * Matching stops when the budget is spent (then the rest of the text gets no linkifier links).
 */
export function findLinkifierLinks(text: string, linkifiers: readonly Linkifier[], budget: LinkifierBudget = linkifierBudget()): FoundLink[] {
  let found: FoundLink[] = [];
  for (const linkifier of linkifiers) {
    const c = compile(linkifier.pattern);
    if (c === null) continue;
    const matches: Match[] = [];
    const finished = findMatches(c, text, budget, matches);
    const added: FoundLink[] = [];
    for (const m of matches) {
      if (overlapsAny(found, m.start, m.end)) continue;
      const href = safeUrl(expandUrlTemplate(linkifier.url_template, m.vars));
      if (href !== null) added.push({ start: m.start, end: m.end, text: text.slice(m.start, m.end), href });
    }
    found = mergeByStart(found, added);
    if (!finished) break;
  }
  return found;
}

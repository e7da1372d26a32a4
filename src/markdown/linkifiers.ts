// Realm linkifiers: a Python-syntax regex with named groups and an RFC 6570 URL template.
// A match must start at a word boundary (start, whitespace or one of '"(,:<) and not run into
// a following word character, as upstream.
import type { FoundLink } from "./autolink.ts";
import type { Linkifier } from "./types.ts";
import { safeUrl } from "./urls.ts";

/** A linkifier ready to run; invalid patterns are dropped. */
interface Compiled {
  re: RegExp;
  template: string;
}

const compiledCache = new Map<string, RegExp | null>();

/** What a `u`-mode JavaScript pattern lets a backslash escape, besides letters and digits. */
const JS_ESCAPABLE = new Set("^$\\.*+?()[]{}|/");

/**
 * A Python (re, re2) pattern in JavaScript's `u`-mode syntax: `(?P<name>...)` and `(?P=name)`
 * become named groups and backreferences, `\A` and `\Z` anchors, and a backslash before any other
 * punctuation (`\-`, `\#`, `\:`, which Python reads as the character itself and JavaScript
 * refuses) becomes that character, escaped as a code point. `[]...]` keeps its literal `]`.
 */
export function pythonPatternToJs(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\" && i + 1 < pattern.length) {
      const code = pattern.codePointAt(i + 1) as number;
      const next = String.fromCodePoint(code);
      i += next.length;
      if (!inClass && (next === "A" || next === "Z")) out += next === "A" ? "^" : "$";
      else if (/[A-Za-z0-9]/.test(next) || JS_ESCAPABLE.has(next) || (inClass && next === "-")) out += c + next;
      else out += `\\u{${code.toString(16)}}`;
      continue;
    }
    out += c;
    if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      if (pattern[i + 1] === "^") out += pattern[++i];
      // Python reads a "]" right after "[" or "[^" as a literal; JavaScript as the class's end.
      if (pattern[i + 1] === "]") {
        out += "\\]";
        i++;
      }
    }
  }
  return out.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
}

function compile(pattern: string): RegExp | null {
  const cached = compiledCache.get(pattern);
  if (cached !== undefined) return cached;
  const js = pythonPatternToJs(pattern);
  const source = `(?<![^\\s'"(,:<])(?:${js})(?![\\p{L}\\p{N}_])`;
  let re: RegExp | null = null;
  try {
    re = new RegExp(source, "gu");
  } catch {
    re = null;
  }
  compiledCache.set(pattern, re);
  return re;
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

function compileAll(linkifiers: readonly Linkifier[]): Compiled[] {
  return linkifiers.flatMap((l) => {
    const re = compile(l.pattern);
    return re === null ? [] : [{ re, template: l.url_template }];
  });
}

/** Linkifier matches in `text`, earlier linkifiers winning overlaps; hrefs are safe URLs. */
export function findLinkifierLinks(text: string, linkifiers: readonly Linkifier[]): FoundLink[] {
  const found: FoundLink[] = [];
  for (const { re, template } of compileAll(linkifiers)) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (m[0] === "" || found.some((f) => start < f.end && end > f.start)) continue;
      const href = safeUrl(expandUrlTemplate(template, m.groups ?? {}));
      if (href !== null) found.push({ start, end, text: m[0], href });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

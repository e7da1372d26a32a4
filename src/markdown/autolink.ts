// Bare-URL detection with upstream's observable rules: where a link may start, which
// trailing punctuation stays outside it, balanced parentheses (at most 7 deep) in paths,
// scheme-less domains only with a known TLD, and e-mail addresses.
import { TLDS } from "./tlds.ts";

/** A link found in plain text: [start, end) of the visible text and its href. */
export interface FoundLink {
  start: number;
  end: number;
  text: string;
  href: string;
}

const BOUNDARY_BEFORE = /[\s'"(,:<]/u;
const TRAILING = new Set(["!", ":", ";", "?", ")", ",", ".", "'", '"', ">"]);
const WORD = /[\p{L}\p{N}_]/u;
const SCHEME_HOST_CHAR = /[\p{L}\p{N}_.:@-]/u;
const LABEL_CHAR = /[\p{L}\p{N}_-]/u;
const MAX_PAREN_DEPTH = 7;
const EMAIL = /[\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+\.[\p{L}\p{N}_]+(?=[!:;?),.'">]*(?:$|\s))/uy;

const MAX_TLD_LENGTH = 30;

/** For each position, whether a link may end there: optional trailing punctuation, then whitespace or the end. */
function endPositions(text: string): boolean[] {
  const ok = new Array<boolean>(text.length + 1);
  ok[text.length] = true;
  for (let i = text.length - 1; i >= 0; i--) ok[i] = TRAILING.has(text[i]) ? ok[i + 1] : /\s/u.test(text[i]);
  return ok;
}


/** Shortest path end (exclusive) for a path starting with "/" at `start`, or -1. */
function pathEnd(text: string, ends: boolean[], start: number): number {
  let depth = 0;
  for (let i = start + 1; i <= text.length; i++) {
    if (depth === 0 && ends[i]) return i;
    if (i === text.length) return -1;
    const c = text[i];
    if (/\s/u.test(c) || c === '"') return -1;
    if (c === "(") {
      depth++;
      if (depth > MAX_PAREN_DEPTH) return -1;
    } else if (c === ")") {
      if (depth === 0) return -1;
      depth--;
    }
  }
  return -1;
}

/** End of a link whose host part may end anywhere in [minEnd, hostEnd]; -1 if none fits. */
function finishLink(text: string, ends: boolean[], minEnd: number, hostEnd: number, validHostEnd: (end: number) => boolean): number {
  for (let d = minEnd; d <= hostEnd; d++) {
    if (!validHostEnd(d)) continue;
    if (text[d] === "/") {
      const end = pathEnd(text, ends, d);
      if (end !== -1) return end;
    } else if (ends[d]) {
      return d;
    }
  }
  return -1;
}

function matchSchemeUrl(text: string, ends: boolean[], start: number): number {
  const scheme = /https?:\/\//iy;
  scheme.lastIndex = start;
  if (!scheme.test(text)) return -1;
  const hostStart = scheme.lastIndex;
  let hostEnd = hostStart;
  while (hostEnd < text.length && SCHEME_HOST_CHAR.test(text[hostEnd])) hostEnd++;
  return finishLink(text, ends, hostStart + 1, hostEnd, () => true);
}

function matchDomain(text: string, ends: boolean[], start: number): number {
  let hostEnd = start;
  let dotted = false;
  for (; hostEnd < text.length && (LABEL_CHAR.test(text[hostEnd]) || text[hostEnd] === "."); hostEnd++) dotted ||= text[hostEnd] === ".";
  // A domain needs a dot before its TLD: most words have none.
  if (!dotted) return -1;
  const emptyLabel = text.slice(start, hostEnd).search(/^\.|\.\./);
  const firstBadEnd = emptyLabel === -1 ? hostEnd + 1 : start + emptyLabel + 1;
  const validHostEnd = (end: number): boolean => {
    if (end >= firstBadEnd || !(end === text.length || text[end] === "/" || ends[end])) return false;
    const dot = text.lastIndexOf(".", end - 1);
    if (dot <= start || end - dot > MAX_TLD_LENGTH) return false;
    return TLDS.has(text.slice(dot + 1, end).toLowerCase());
  };
  return finishLink(text, ends, start + 1, hostEnd, validHostEnd);
}

function matchEmail(text: string, start: number, nextAt: number): number {
  if (nextAt === -1) return -1;
  EMAIL.lastIndex = start;
  const m = EMAIL.exec(text);
  return m === null ? -1 : start + m[0].length;
}

/** Finds bare links in `text`; `atStart` says whether position 0 counts as a link boundary. */
export function findAutolinks(text: string, atStart = true): FoundLink[] {
  const found: FoundLink[] = [];
  // Every kind of link holds a dot (domains, e-mail addresses) or a scheme's "://".
  if (!text.includes(".") && !text.includes("://")) return found;
  const ends = endPositions(text);
  // The next "@" at or after i, kept as i moves (searching afresh at each i is quadratic).
  let nextAt = text.indexOf("@");
  let i = 0;
  while (i < text.length) {
    const boundary = i === 0 ? atStart : BOUNDARY_BEFORE.test(text[i - 1]);
    if (!boundary || !WORD.test(text[i])) {
      i++;
      continue;
    }
    let end = matchSchemeUrl(text, ends, i);
    let kind: "url" | "domain" | "email" = "url";
    if (end === -1) {
      end = matchDomain(text, ends, i);
      kind = "domain";
    }
    if (nextAt !== -1 && nextAt < i) nextAt = text.indexOf("@", i);
    if (end === -1) {
      end = matchEmail(text, i, nextAt);
      kind = "email";
    }
    if (end === -1) {
      i++;
      continue;
    }
    const linkText = text.slice(i, end);
    const href = kind === "url" ? linkText : kind === "email" ? `mailto:${linkText}` : `http://${linkText}`;
    found.push({ start: i, end, text: linkText, href });
    i = end;
  }
  return found;
}

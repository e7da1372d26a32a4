// A message's `topic_links`: the realm's linkifiers applied to the topic, then bare URLs in it,
// with upstream's observable rules: linkifiers in their order win over later ones and over
// bare URLs; a bare URL is looked for in each stretch of the topic between the characters
// ` !;),'"` (the first one in a stretch only); links come out in the order they start.
import { findLinkifierLinks } from "./linkifiers.ts";
import { TLDS } from "./tlds.ts";
import type { Linkifier } from "./types.ts";

/** One link of a topic: the text it covers and where it goes. */
interface TopicLink {
  text: string;
  url: string;
}

/** A candidate link and the interval upstream compares for overlaps: [index, index + text.length). */
interface Candidate extends TopicLink {
  index: number;
}

const SPLITTER = /[ !;),'"]/;
// Python's \w, inside a character class.
const W = "\\p{L}\\p{N}_";

// Longest TLDs first, so "community" is tried before "com".
const TLD_ALTERNATION = [...TLDS].sort((a, b) => b.length - a.length || a.localeCompare(b)).join("|");

// A stretch never holds ")", so upstream's balanced-parentheses path part reduces to this path.
const BARE_URL = new RegExp(
  `(?<![^\\s'"(,:<])(?<url>` +
    `(?:https?://[${W}.:@-]+?|(?:[${W}-]+\\.)+(?:${TLD_ALTERNATION}))(?:/[^\\s()"]*?)?` +
    `|[${W}.-]+@[${W}.-]+\\.[${W}]+` +
    `|bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34}` +
    `)(?=[!:;?),.'">]*(?:$|\\s))`,
  "u",
);

/**
 * Where a bare URL goes: as written when it has a scheme; otherwise over https, the text up to
 * the first "/" being the host, and an empty query or fragment dropped (as upstream's
 * urlsplit/geturl round trip does; an e-mail address thus becomes https://user@host).
 */
function bareUrlTarget(text: string): string {
  if (/^(?:https?:\/\/|bitcoin:)/.test(text)) return text;
  const hash = text.indexOf("#");
  const beforeFragment = hash === -1 ? text : text.slice(0, hash);
  const fragment = hash === -1 ? "" : text.slice(hash + 1);
  const question = beforeFragment.indexOf("?");
  const path = question === -1 ? beforeFragment : beforeFragment.slice(0, question);
  const query = question === -1 ? "" : beforeFragment.slice(question + 1);
  return `https://${path}${query === "" ? "" : `?${query}`}${fragment === "" ? "" : `#${fragment}`}`;
}

/** The first bare URL of each stretch between splitter characters, at the stretch's start. */
function bareUrls(topic: string): Candidate[] {
  const found: Candidate[] = [];
  for (let pos = 0; pos < topic.length; ) {
    const split = topic.slice(pos).search(SPLITTER);
    const end = split === -1 ? topic.length : pos + split;
    const url = BARE_URL.exec(topic.slice(pos, end))?.groups?.url;
    if (url !== undefined) found.push({ text: url, url: bareUrlTarget(url), index: pos });
    pos = end + 1;
  }
  return found;
}

const overlaps = (a: Candidate, b: Candidate) => (b.index <= a.index && a.index < b.index + b.text.length) || (a.index <= b.index && b.index < a.index + a.text.length);

/** The links of a topic, in the order they appear. */
export function topicLinks(topic: string, linkifiers: readonly Linkifier[]): TopicLink[] {
  if (topic === "") return [];
  // Upstream's linkifier match starts at the boundary character before the text, if any.
  const kept: Candidate[] = findLinkifierLinks(topic, linkifiers).map((l) => ({ text: l.text, url: l.href, index: Math.max(0, l.start - 1) }));
  for (const candidate of bareUrls(topic)) if (!kept.some((k) => overlaps(k, candidate))) kept.push(candidate);
  return kept.sort((a, b) => a.index - b.index).map(({ text, url }) => ({ text, url }));
}

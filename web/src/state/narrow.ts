/**
 * Narrows: which messages a view shows. Parsed from and written to the URL hash in Zulip's
 * `#narrow/...` form (so links are shareable), turned into API narrow terms, and matched
 * against messages that arrive live.
 */
import type { Message } from "../api/types.ts";

/** A view of the messages. `dm` lists the other participants (or only the user, for notes to self). */
export type Narrow =
  | { kind: "feed" }
  | { kind: "channel"; streamId: number }
  | { kind: "topic"; streamId: number; topic: string }
  | { kind: "dm"; userIds: number[] }
  | { kind: "mentions" }
  | { kind: "starred" }
  | { kind: "search"; terms: SearchTerm[] };

/**
 * One term of a search narrow, as Zulip's URL and search box spell it. Operators are canonical
 * (`channel`, `topic`, `sender`, `dm`, ...); operands naming a channel or users hold their ids
 * as text ("12", "3,7") once resolved (state/search.ts), else the typed name or email.
 */
export type SearchTerm = { operator: string; operand: string; negated: boolean };

/** The combined feed: every message. */
export const FEED: Narrow = { kind: "feed" };

/**
 * Zulip's hash encoding of one path component: percent-encoding with "." for "%", so that
 * hashes survive tools that decode percent escapes once.
 */
export function encodeHashComponent(text: string): string {
  return encodeURIComponent(text).replace(/[%().]/g, (c) => (c === "%" ? "." : `.${c.charCodeAt(0).toString(16).toUpperCase()}`));
}

/** The inverse of encodeHashComponent (null when malformed). */
export function decodeHashComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\./g, "%"));
  } catch {
    return null;
  }
}

/** The id at the front of a "42-general" slug. */
function slugId(slug: string): number | null {
  const id = Number(/^(\d+)/.exec(slug)?.[1]);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** A simple narrow when the terms are one (channel, topic, conversation, mentions, starred). */
export function simplify(terms: readonly SearchTerm[]): Narrow {
  if (terms.length === 0) return FEED;
  if (terms.some((t) => t.negated)) return { kind: "search", terms: [...terms] };
  const [a, b] = terms;
  const streamId = a.operator === "channel" ? slugId(a.operand) : null;
  if (terms.length === 1 && streamId !== null && /^\d+$/.test(a.operand)) return { kind: "channel", streamId };
  if (terms.length === 2 && streamId !== null && /^\d+$/.test(a.operand) && b.operator === "topic") return { kind: "topic", streamId, topic: b.operand };
  if (terms.length === 1 && a.operator === "dm" && /^\d+(,\d+)*$/.test(a.operand)) return { kind: "dm", userIds: a.operand.split(",").map(Number).sort((x, y) => x - y) };
  if (terms.length === 1 && a.operator === "is" && a.operand === "mentioned") return { kind: "mentions" };
  if (terms.length === 1 && a.operator === "is" && a.operand === "starred") return { kind: "starred" };
  return { kind: "search", terms: [...terms] };
}

/** Operator spellings Zulip accepts besides the canonical ones. */
const ALIASES: Record<string, string> = { stream: "channel", subject: "topic", from: "sender", "pm-with": "dm", streams: "channels" };

/** The canonical name of an operator. */
export function canonicalOperator(operator: string): string {
  return ALIASES[operator] ?? operator;
}

/** Operands whose hash form carries a readable slug after the id ("12-general", "3,7-group"). */
function hashOperand(operator: string, raw: string): string | null {
  const text = decodeHashComponent(raw);
  if (text === null) return null;
  if (operator === "channel" || operator === "sender") return /^\d+-/.test(text) ? String(slugId(text)) : text;
  if (operator === "dm") return /^[\d,]+-/.test(text) ? text.split("-")[0] : text;
  return text;
}

/**
 * The narrow a location hash names; the combined feed for anything else. Upstream's links to a
 * direct conversation list every participant, the user (`me`) included: the narrow lists the others.
 */
export function parseHash(hash: string, me?: number): Narrow {
  const parts = hash.replace(/^#/, "").split("/");
  if (parts[0] !== "narrow") return FEED;
  const terms: SearchTerm[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const negated = parts[i].startsWith("-");
    const operator = canonicalOperator(parts[i].replace(/^-/, ""));
    const operand = hashOperand(operator, parts[i + 1]);
    if (operator === "" || operand === null) return FEED;
    // A link to a message (`/near/42`) opens its conversation; the feed loads the newest page.
    if (operator === "near") continue;
    terms.push({ operator, operand, negated });
  }
  const n = simplify(terms);
  if (n.kind !== "dm" || me === undefined || n.userIds.length < 2) return n;
  return { kind: "dm", userIds: n.userIds.filter((id) => id !== me) };
}

/** The hash of a narrow; `names` gives the slug text (channel or user names) for readability. */
export function narrowHash(narrow: Narrow, streamName: (id: number) => string = () => ""): string {
  const slug = (id: number, name: string) => (name === "" ? String(id) : `${id}-${encodeHashComponent(name.replace(/\s+/g, "-"))}`);
  switch (narrow.kind) {
    case "feed":
      return "#feed";
    case "channel":
      return `#narrow/channel/${slug(narrow.streamId, streamName(narrow.streamId))}`;
    case "topic":
      return `#narrow/channel/${slug(narrow.streamId, streamName(narrow.streamId))}/topic/${encodeHashComponent(narrow.topic)}`;
    case "dm":
      return `#narrow/dm/${narrow.userIds.join(",")}`;
    case "mentions":
      return "#narrow/is/mentioned";
    case "starred":
      return "#narrow/is/starred";
    case "search":
      return `#narrow/${narrow.terms.map((t) => `${t.negated ? "-" : ""}${t.operator}/${encodeHashComponent(t.operand)}`).join("/")}`;
  }
}

/** The API narrow terms of a narrow. */
export function apiTerms(narrow: Narrow): Array<{ operator: string; operand: string | number | number[]; negated?: boolean }> {
  switch (narrow.kind) {
    case "feed":
      // As upstream's combined feed: muted channels and topics left out.
      return [{ operator: "in", operand: "home" }];
    case "channel":
      return [{ operator: "channel", operand: narrow.streamId }];
    case "topic":
      return [{ operator: "channel", operand: narrow.streamId }, { operator: "topic", operand: narrow.topic }];
    case "dm":
      return [{ operator: "dm", operand: narrow.userIds }];
    case "mentions":
      return [{ operator: "is", operand: "mentioned" }];
    case "starred":
      return [{ operator: "is", operand: "starred" }];
    case "search":
      return narrow.terms.map(apiTerm);
  }
}

/** A search term as the API takes it: ids as numbers where the operator takes ids. */
function apiTerm(t: SearchTerm): { operator: string; operand: string | number | number[]; negated?: boolean } {
  const negated = t.negated ? { negated: true } : {};
  if ((t.operator === "channel" || t.operator === "sender" || t.operator === "id" || t.operator === "dm-including") && /^\d+$/.test(t.operand)) {
    return { operator: t.operator, operand: Number(t.operand), ...negated };
  }
  if (t.operator === "dm" && /^\d+(,\d+)*$/.test(t.operand)) return { operator: "dm", operand: t.operand.split(",").map(Number), ...negated };
  return { operator: t.operator, operand: t.operand, ...negated };
}

/** The other participants of a direct message, sorted; only the user for a note to self. */
export function dmUserIds(message: Pick<Message, "display_recipient">, me: number): number[] {
  if (typeof message.display_recipient === "string") return [];
  const others = message.display_recipient.map((u) => u.id).filter((id) => id !== me);
  return others.length > 0 ? others.sort((a, b) => a - b) : [me];
}

/** The key of a direct conversation ("3,7"). */
export function dmKey(userIds: readonly number[]): string {
  return userIds.join(",");
}

function sameTopic(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Whether a message that arrived live belongs in a narrow (a search only when the app can decide every term). */
export function matches(narrow: Narrow, message: Message, me: number): boolean {
  switch (narrow.kind) {
    case "feed":
      return true;
    case "channel":
      return message.type === "stream" && message.stream_id === narrow.streamId;
    case "topic":
      return message.type === "stream" && message.stream_id === narrow.streamId && sameTopic(message.subject, narrow.topic);
    case "dm":
      return message.type === "private" && dmKey(dmUserIds(message, me)) === dmKey(narrow.userIds);
    case "mentions":
      return isMentioned(message);
    case "starred":
      return message.flags.includes("starred");
    case "search":
      return narrow.terms.every((t) => termMatches(t, message, me) === !t.negated);
  }
}

function isMentioned(message: Message): boolean {
  return message.flags.some((f) => f === "mentioned" || f === "stream_wildcard_mentioned" || f === "topic_wildcard_mentioned");
}

/**
 * Whether a message meets one search term, for terms the app can decide (channel and user ids,
 * topic, is:...); null for the rest (words, has:, names the app did not resolve), which only
 * the server can tell, so a live message stays out of such a search (as in Zulip's web app).
 */
function termMatches(t: SearchTerm, message: Message, me: number): boolean | null {
  const ids = /^\d+(,\d+)*$/.test(t.operand) ? t.operand.split(",").map(Number) : null;
  switch (t.operator) {
    case "channel":
      return ids?.length === 1 ? message.type === "stream" && message.stream_id === ids[0] : null;
    case "topic":
      return message.type === "stream" && sameTopic(message.subject, t.operand);
    case "sender":
      return ids?.length === 1 ? message.sender_id === ids[0] : null;
    case "dm":
      return ids === null ? null : message.type === "private" && dmKey(dmUserIds(message, me)) === dmKey([...ids].sort((a, b) => a - b).filter((id) => id !== me || ids.length === 1));
    case "is":
      if (t.operand === "dm" || t.operand === "private") return message.type === "private";
      if (t.operand === "starred") return message.flags.includes("starred");
      if (t.operand === "mentioned") return isMentioned(message);
      if (t.operand === "unread") return !message.flags.includes("read");
      return null;
    default:
      return null;
  }
}

/** Whether two narrows are the same view. */
export function sameNarrow(a: Narrow, b: Narrow): boolean {
  return narrowHash(a) === narrowHash(b);
}

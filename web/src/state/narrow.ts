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
  | { kind: "search"; query: string };

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

/** The narrow a location hash names; the combined feed for anything else. */
export function parseHash(hash: string): Narrow {
  const parts = hash.replace(/^#/, "").split("/");
  if (parts[0] !== "narrow") return FEED;
  const [, op, operand, op2, operand2] = parts;
  if ((op === "channel" || op === "stream") && operand !== undefined) {
    const streamId = slugId(operand);
    if (streamId === null) return FEED;
    const topic = op2 === "topic" && operand2 !== undefined ? decodeHashComponent(operand2) : null;
    return topic === null ? { kind: "channel", streamId } : { kind: "topic", streamId, topic };
  }
  if ((op === "dm" || op === "pm-with") && operand !== undefined) {
    const ids = operand.split("-")[0].split(",").map(Number);
    return ids.every((id) => Number.isSafeInteger(id) && id > 0) ? { kind: "dm", userIds: [...ids].sort((a, b) => a - b) } : FEED;
  }
  if (op === "is" && operand === "mentioned") return { kind: "mentions" };
  if (op === "is" && operand === "starred") return { kind: "starred" };
  if (op === "search" && operand !== undefined) return { kind: "search", query: decodeHashComponent(operand) ?? "" };
  return FEED;
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
      return `#narrow/search/${encodeHashComponent(narrow.query)}`;
  }
}

/** The API narrow terms of a narrow. */
export function apiTerms(narrow: Narrow): Array<{ operator: string; operand: string | number | number[] }> {
  switch (narrow.kind) {
    case "feed":
      return [];
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
      return [{ operator: "search", operand: narrow.query }];
  }
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

/** Whether a message that arrived live belongs in a narrow (search narrows never take live messages). */
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
      return message.flags.some((f) => f === "mentioned" || f === "stream_wildcard_mentioned" || f === "topic_wildcard_mentioned");
    case "starred":
      return message.flags.includes("starred");
    case "search":
      return false;
  }
}

/** Whether two narrows are the same view. */
export function sameNarrow(a: Narrow, b: Narrow): boolean {
  return narrowHash(a) === narrowHash(b);
}

/**
 * Unread messages: which messages are unread and where they are (channel and topic, or direct
 * conversation), from the snapshot's unread_msgs, new messages and flag events. Counts per
 * channel, topic and conversation are derived; as upstream, muted topics (state/muting.ts) count
 * only in their own topic's count, not in their channel's nor in the total. Messages seen in
 * the feed are marked read in small batches (`markSeen`), optimistically.
 */
import { computed, signal } from "@preact/signals";
import { api } from "../api/client.ts";
import type { Message, UnreadDetail, UnreadMsgs } from "../api/types.ts";
import { isTopicMuted } from "./muting.ts";
import { dmKey, dmUserIds } from "./narrow.ts";

type Where = { streamId: number; topic: string } | { dm: string };
/** Where an unread message is (a channel's topic, or a direct conversation's key), and whether it mentions the user. */
export type UnreadEntry = Where & { mentioned: boolean };
type Entry = UnreadEntry;

let entries = new Map<number, Entry>();
/** Bumped on every change, so computed counts re-run. */
const version = signal(0);

function changed(): void {
  version.value += 1;
}

/** Per-place unread counts (muted topics only in `topics`). Topic keys are `${streamId}\n${lowercased topic}`. */
export const unreadCounts = computed(() => {
  version.value;
  const streams = new Map<number, number>();
  const topics = new Map<string, number>();
  const dms = new Map<string, number>();
  let mentions = 0;
  let total = 0;
  for (const entry of entries.values()) {
    if ("dm" in entry) dms.set(entry.dm, (dms.get(entry.dm) ?? 0) + 1);
    else {
      const key = topicKey(entry.streamId, entry.topic);
      topics.set(key, (topics.get(key) ?? 0) + 1);
      if (isTopicMuted(entry.streamId, entry.topic)) continue;
      streams.set(entry.streamId, (streams.get(entry.streamId) ?? 0) + 1);
    }
    total += 1;
    if (entry.mentioned) mentions += 1;
  }
  return { total, streams, topics, dms, mentions };
});

/** The key of a topic in unreadCounts.topics. */
export function topicKey(streamId: number, topic: string): string {
  return `${streamId}\n${topic.toLowerCase()}`;
}

/** Every unread message by id, with where it is (the Inbox lists them by conversation). */
export function unreadEntries(): ReadonlyMap<number, Readonly<UnreadEntry>> {
  version.value;
  return entries;
}

/** Whether a message is unread. */
export function isUnread(id: number): boolean {
  version.value;
  return entries.has(id);
}

/** The unread topics of a channel with their counts (the names as first seen). */
export function unreadTopics(streamId: number): Map<string, string> {
  version.value;
  const out = new Map<string, string>();
  for (const e of entries.values()) if ("streamId" in e && e.streamId === streamId && !out.has(e.topic.toLowerCase())) out.set(e.topic.toLowerCase(), e.topic);
  return out;
}

/**
 * The next unread topic after (streamId, topic), for the `n` key, as Zulip goes: channels in the
 * order given (the sidebar's, muted ones left out), within a channel its topics oldest unread
 * first, muted topics left out, wrapping around; null when no other topic has unread messages.
 */
export function nextUnreadTopic(after: { streamId: number; topic: string } | null, channelOrder: readonly number[]): { streamId: number; topic: string } | null {
  const firstIds = new Map<string, { streamId: number; topic: string; id: number }>();
  for (const [id, e] of entries) {
    if (!("streamId" in e) || isTopicMuted(e.streamId, e.topic)) continue;
    const key = topicKey(e.streamId, e.topic);
    const known = firstIds.get(key);
    if (known === undefined || id < known.id) firstIds.set(key, { streamId: e.streamId, topic: e.topic, id });
  }
  const rank = new Map(channelOrder.map((id, i) => [id, i]));
  const list = [...firstIds.values()].filter((t) => rank.has(t.streamId)).sort((a, b) => (rank.get(a.streamId) ?? 0) - (rank.get(b.streamId) ?? 0) || a.id - b.id);
  const at = after === null ? -1 : list.findIndex((t) => topicKey(t.streamId, t.topic) === topicKey(after.streamId, after.topic));
  // From a channel narrow or elsewhere (not in the list): start at the first topic of the current channel or later.
  const start = at >= 0 ? at + 1 : after === null ? 0 : Math.max(0, list.findIndex((t) => (rank.get(t.streamId) ?? 0) >= (rank.get(after.streamId) ?? 0)));
  for (let i = 0; i < list.length; i += 1) {
    const t = list[(start + i) % list.length];
    if (after === null || topicKey(t.streamId, t.topic) !== topicKey(after.streamId, after.topic)) return { streamId: t.streamId, topic: t.topic };
  }
  return null;
}

/** Replaces the unread set with a snapshot's unread_msgs. */
export function loadUnreads(unread: UnreadMsgs, me: number): void {
  const next = new Map<number, Entry>();
  const mentioned = new Set(unread.mentions);
  for (const s of unread.streams) for (const id of s.unread_message_ids) next.set(id, { streamId: s.stream_id, topic: s.topic, mentioned: mentioned.has(id) });
  for (const p of unread.pms) for (const id of p.unread_message_ids) next.set(id, { dm: dmKey(p.other_user_id === me ? [me] : [p.other_user_id]), mentioned: mentioned.has(id) });
  for (const h of unread.huddles) {
    const others = h.user_ids_string.split(",").map(Number).filter((u) => u !== me);
    for (const id of h.unread_message_ids) next.set(id, { dm: dmKey(others), mentioned: mentioned.has(id) });
  }
  entries = next;
  pending.clear();
  changed();
}

function isMention(flags: readonly string[]): boolean {
  return flags.some((f) => f === "mentioned" || f === "stream_wildcard_mentioned" || f === "topic_wildcard_mentioned");
}

/** A new message: unread unless its flags say read. */
export function addMessage(message: Message, me: number): void {
  if (message.flags.includes("read")) return;
  const where: Where = message.type === "stream" && message.stream_id !== undefined ? { streamId: message.stream_id, topic: message.subject } : { dm: dmKey(dmUserIds(message, me)) };
  entries.set(message.id, { ...where, mentioned: isMention(message.flags) });
  changed();
}

/** Messages now read (flag event, deletion). */
export function removeIds(ids: readonly number[]): void {
  let any = false;
  for (const id of ids) any = entries.delete(id) || any;
  if (any) changed();
}

/** Messages marked unread again (flag event with message_details, FL 121). */
export function restore(details: Record<string, UnreadDetail>, me: number): void {
  for (const [id, d] of Object.entries(details)) {
    const where: Where = d.type === "stream" ? { streamId: d.stream_id, topic: d.topic } : { dm: dmKey(d.user_ids.length > 0 ? [...d.user_ids].sort((a, b) => a - b) : [me]) };
    entries.set(Number(id), { ...where, mentioned: d.mentioned === true });
  }
  changed();
}

/** Every message read (the legacy `all` flag event). */
export function clearAll(): void {
  entries = new Map();
  changed();
}

/** A message moved to another channel or topic. */
export function moveIds(ids: readonly number[], to: { streamId?: number; topic?: string }): void {
  for (const id of ids) {
    const e = entries.get(id);
    if (e && "streamId" in e) entries.set(id, { ...e, streamId: to.streamId ?? e.streamId, topic: to.topic ?? e.topic });
  }
  changed();
}

/** Wait before sending a batch of seen messages, in ms: scrolling sees many at once. */
const MARK_READ_DELAY_MS = 150;
const pending = new Set<number>();
let timer: ReturnType<typeof setTimeout> | null = null;

/** A message was seen in the feed: mark it read (locally now, on the server in a batch). */
export function markSeen(id: number): void {
  if (!entries.has(id)) return;
  entries.delete(id);
  pending.add(id);
  changed();
  timer ??= setTimeout(flush, MARK_READ_DELAY_MS);
}

function flush(): void {
  timer = null;
  const ids = [...pending];
  pending.clear();
  // A failure leaves them read here; the next snapshot (after a reconnect) corrects the view.
  if (ids.length > 0) void api.flags(ids, "add", "read").catch(() => undefined);
}

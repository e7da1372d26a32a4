/**
 * Recent conversations (Zulip's `#recent` view): the topics and direct conversations with recent
 * messages, newest first. Built from the messages the app has: the newest RECENT_BATCH messages
 * fetched when the view first opens (older batches on demand, as upstream's view loads more),
 * the feed's loaded messages, and new messages as they arrive (events.ts), moved or deleted as
 * events say. Unread counts come from unread.ts; the filters (text, unread only, participated,
 * muted topics) from the view's controls.
 */
import { computed, signal } from "@preact/signals";
import { api } from "../api/client.ts";
import type { Message } from "../api/types.ts";
import { messages as feedMessages } from "./feed.ts";
import { dmKey, dmUserIds } from "./narrow.ts";
import { isTopicMuted as topicMuted } from "./muting.ts";
import { dmTitle, me, streamName, subscriptions, userName } from "./store.ts";
import { filterWords, matchesWords } from "./text-filter.ts";
import { topicKey, unreadCounts } from "./unread.ts";

/** Messages fetched per batch (upstream's recent view starts from a few hundred of the newest). */
const RECENT_BATCH = 400;

/** What the view needs of one message. */
type Seen = { streamId: number | null; topic: string; dm: number[]; senderId: number; timestamp: number };

/** A conversation: a channel's topic (`streamId`, `topic`) or a direct conversation (`userIds`, the others). */
export type Conversation = {
  key: string;
  streamId: number | null;
  topic: string;
  userIds: number[];
  maxId: number;
  timestamp: number;
  /** Who sent its messages, the latest first (for a direct conversation: its participants). */
  senders: number[];
  /** Whether the user sent one of its messages. */
  participated: boolean;
  unread: number;
  muted: boolean;
};

let seen = new Map<number, Seen>();
const version = signal(0);

/** Whether the first batch was fetched: "idle" before (and after a new snapshot), then "loading", "loaded" or "failed". */
export const recentStatus = signal<"idle" | "loading" | "loaded" | "failed">("idle");
/** Whether the oldest message was reached. */
export const recentComplete = signal(false);
/** The filter box's text and the filters. */
export const recentFilter = signal({ text: "", unreadOnly: false, participated: false, includeMuted: false });

function record(m: Message, myId: number): Seen {
  const stream = m.type === "stream" && m.stream_id !== undefined;
  return { streamId: stream ? (m.stream_id ?? null) : null, topic: stream ? m.subject : "", dm: stream ? [] : dmUserIds(m, myId), senderId: m.sender_id, timestamp: m.timestamp };
}

function add(list: readonly Message[], myId: number): void {
  for (const m of list) seen.set(m.id, record(m, myId));
  version.value += 1;
}

function conversationKey(s: Seen): string {
  return s.streamId === null ? `dm:${dmKey(s.dm)}` : topicKey(s.streamId, s.topic);
}

/** Every conversation, newest first (channels the user left are not listed). */
export const conversations = computed<readonly Conversation[]>(() => {
  version.value;
  const myId = me.value?.user_id;
  const all = new Map(seen);
  for (const m of feedMessages.value) if (!all.has(m.id) && myId !== undefined) all.set(m.id, record(m, myId));
  const counts = unreadCounts.value;
  const byKey = new Map<string, Conversation>();
  // Newest first, so each conversation's first message names it and starts its senders.
  for (const [id, s] of [...all].sort((a, b) => b[0] - a[0])) {
    if (s.streamId !== null && !subscriptions.value.has(s.streamId)) continue;
    const key = conversationKey(s);
    let c = byKey.get(key);
    if (c === undefined) {
      const unread = s.streamId === null ? counts.dms.get(dmKey(s.dm)) : counts.topics.get(key);
      c = { key, streamId: s.streamId, topic: s.topic, userIds: s.dm, maxId: id, timestamp: s.timestamp, senders: s.streamId === null ? [...s.dm] : [], participated: false, unread: unread ?? 0, muted: s.streamId !== null && topicMuted(s.streamId, s.topic) };
      byKey.set(key, c);
    }
    if (s.streamId !== null && !c.senders.includes(s.senderId)) c.senders.push(s.senderId);
    if (s.senderId === myId) c.participated = true;
  }
  return [...byKey.values()];
});

/** The title of a conversation, as the filter box searches it. */
export function conversationTitle(c: Conversation): string {
  return c.streamId === null ? dmTitle(c.userIds) : `#${streamName(c.streamId)} › ${c.topic === "" ? "general chat" : c.topic}`;
}

/** The conversations the filters let through. */
export const filteredConversations = computed(() => {
  const f = recentFilter.value;
  const words = filterWords(f.text);
  return conversations.value.filter(
    (c) =>
      (f.includeMuted || !c.muted) &&
      (!f.unreadOnly || c.unread > 0) &&
      (!f.participated || c.participated) &&
      (words.length === 0 || matchesWords(words, [conversationTitle(c), ...c.senders.map(userName)])),
  );
});

/** Changes the filters. */
export function setRecentFilter(change: Partial<typeof recentFilter.value>): void {
  recentFilter.value = { ...recentFilter.value, ...change };
}

async function fetchBatch(anchor: number | "newest"): Promise<void> {
  const myId = me.value?.user_id;
  if (myId === undefined) return;
  const res = await api.messages({ anchor, include_anchor: anchor === "newest", num_before: RECENT_BATCH, num_after: 0, narrow: [], apply_markdown: false, client_gravatar: false });
  add(res.messages, myId);
  recentComplete.value = res.found_oldest;
}

/** Fetches the newest batch, once per snapshot (the view calls it when it opens). */
export async function loadRecent(): Promise<void> {
  if (recentStatus.value !== "idle") return;
  recentStatus.value = "loading";
  try {
    await fetchBatch("newest");
    recentStatus.value = "loaded";
  } catch {
    recentStatus.value = "failed";
  }
}

/** Fetches the batch before the oldest message known. */
export async function loadOlderRecent(): Promise<void> {
  const oldest = Math.min(...seen.keys());
  if (!Number.isFinite(oldest) || recentComplete.value) return;
  await fetchBatch(oldest);
}

/** A new message (an event). */
export function addRecentMessage(m: Message, myId: number): void {
  add([m], myId);
}

/** Messages moved to another channel or topic. */
export function moveRecent(ids: readonly number[], to: { streamId?: number; topic?: string }): void {
  for (const id of ids) {
    const s = seen.get(id);
    if (s !== undefined && s.streamId !== null) seen.set(id, { ...s, streamId: to.streamId ?? s.streamId, topic: to.topic ?? s.topic });
  }
  version.value += 1;
}

/** Deleted messages. */
export function removeRecent(ids: readonly number[]): void {
  for (const id of ids) seen.delete(id);
  version.value += 1;
}

/** A new snapshot (after a reconnect, messages may have been missed): the view fetches afresh when shown. */
export function resetRecent(): void {
  seen = new Map();
  recentComplete.value = false;
  recentStatus.value = "idle";
  version.value += 1;
}

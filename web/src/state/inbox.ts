/**
 * The Inbox (Zulip's default view): the unread conversations, direct messages first, then each
 * channel with its unread topics, with their counts. Derived from the unread state
 * (`unread.ts`), so it follows new messages and reads live. As upstream, a muted topic, and a
 * muted channel's topics not unmuted, stay out. Which groups are collapsed is remembered in the
 * browser (localStorage), per user.
 */
import { computed, signal } from "@preact/signals";
import { isTopicMuted as topicMuted } from "./muting.ts";
import { dmTitle, me, sortedSubscriptions, streamName } from "./store.ts";
import { filterWords, matchesWords } from "./text-filter.ts";
import { unreadEntries } from "./unread.ts";

/** A topic with unread messages; `maxId` is its newest unread message. */
export type InboxTopic = { topic: string; count: number; mentioned: boolean; maxId: number };
/** A channel with its unread topics, newest first. */
export type InboxChannel = { streamId: number; count: number; topics: InboxTopic[] };
/** A direct conversation with unread messages. */
export type InboxDm = { userIds: number[]; key: string; count: number; mentioned: boolean; maxId: number };

/** The key of the direct-messages group among the collapsed groups. */
export const DMS_GROUP = "dms";

/** The key of a channel's group among the collapsed groups. */
export function channelGroup(streamId: number): string {
  return `channel:${streamId}`;
}

/** The Inbox filter box's text. */
export const inboxFilter = signal("");

function grouped(): { dms: InboxDm[]; channels: InboxChannel[] } {
  const dms = new Map<string, InboxDm>();
  const byChannel = new Map<number, Map<string, InboxTopic>>();
  for (const [id, e] of unreadEntries()) {
    if ("dm" in e) {
      const dm = dms.get(e.dm) ?? { userIds: e.dm.split(",").map(Number), key: e.dm, count: 0, mentioned: false, maxId: 0 };
      dms.set(e.dm, { ...dm, count: dm.count + 1, mentioned: dm.mentioned || e.mentioned, maxId: Math.max(dm.maxId, id) });
      continue;
    }
    if (topicMuted(e.streamId, e.topic)) continue;
    const topics = byChannel.get(e.streamId) ?? new Map<string, InboxTopic>();
    byChannel.set(e.streamId, topics);
    const key = e.topic.toLowerCase();
    const t = topics.get(key) ?? { topic: e.topic, count: 0, mentioned: false, maxId: 0 };
    topics.set(key, { ...t, count: t.count + 1, mentioned: t.mentioned || e.mentioned, maxId: Math.max(t.maxId, id) });
  }
  // Channels in the sidebar's order (pinned first, then by name); any other channel after them, by name.
  const rank = new Map(sortedSubscriptions.value.map((s, i) => [s.stream_id, i]));
  const order = (id: number) => rank.get(id) ?? rank.size;
  const channels = [...byChannel]
    .map(([streamId, topics]) => {
      const list = [...topics.values()].sort((a, b) => b.maxId - a.maxId);
      return { streamId, count: list.reduce((n, t) => n + t.count, 0), topics: list };
    })
    .sort((a, b) => order(a.streamId) - order(b.streamId) || streamName(a.streamId).localeCompare(streamName(b.streamId)));
  return { dms: [...dms.values()].sort((a, b) => b.maxId - a.maxId), channels };
}

const allGroups = computed(grouped);

/** How many unread messages the Inbox holds (the sidebar's count: muted topics left out). */
export const inboxTotal = computed(() => {
  const { dms, channels } = allGroups.value;
  return [...dms, ...channels].reduce((n, g) => n + g.count, 0);
});

/** The Inbox's conversations, narrowed by the filter box (a channel matches by its name or its topics'). */
export const inbox = computed(() => {
  const all = allGroups.value;
  const words = filterWords(inboxFilter.value);
  if (words.length === 0) return all;
  return {
    dms: all.dms.filter((d) => matchesWords(words, [dmTitle(d.userIds)])),
    channels: all.channels
      .map((c) => ({ ...c, topics: c.topics.filter((t) => matchesWords(words, [streamName(c.streamId), t.topic])) }))
      .filter((c) => c.topics.length > 0),
  };
});

function storageKey(userId: number): string {
  return `parley.inbox.collapsed.${userId}`;
}

function readCollapsed(userId: number | undefined): ReadonlySet<string> {
  if (userId === undefined) return new Set();
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(userId)) ?? "[]");
    return new Set(Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : []);
  } catch {
    return new Set();
  }
}

/** Collapsed groups as the user left them, per user. */
const collapsedByUser = signal<{ userId: number | undefined; keys: ReadonlySet<string> } | null>(null);

/** The collapsed groups (DMS_GROUP, channelGroup(id)) of the signed-in user. */
export const collapsed = computed<ReadonlySet<string>>(() => {
  const userId = me.value?.user_id;
  const known = collapsedByUser.value;
  return known !== null && known.userId === userId ? known.keys : readCollapsed(userId);
});

/** Collapses or expands a group, and remembers it. */
export function toggleGroup(key: string): void {
  const userId = me.value?.user_id;
  const keys = new Set(collapsed.value);
  if (!keys.delete(key)) keys.add(key);
  collapsedByUser.value = { userId, keys };
  if (userId === undefined) return;
  try {
    localStorage.setItem(storageKey(userId), JSON.stringify([...keys]));
  } catch {
    // Storage refused: the choice lasts for this tab.
  }
}

/**
 * The register snapshot's per-user message data: `message` (max_message_id), `unread_msgs`
 * (with `update_message_flags`), `starred_messages`, `recent_private_conversations`,
 * `user_topic` (user_topics) and the deprecated `muted_topics`.
 */
import { mutedTopicsState, userTopicsState } from "./user-topics.ts";
import type { SnapshotCtx } from "./provider.ts";
import type { UserRow } from "../store/schema/database.ts";
import { classifyUnreads, maxReceivedMessageId, MAX_UNREAD_MESSAGES, recentDirectConversations, starredMessageIds, unreadRows, type RawUnreads } from "../store/lookups/unreads.ts";
import { readWanted, type StateProvider } from "./provider.ts";

type IdGroup<K extends string> = Record<K, number | string> & { unread_message_ids: number[] };

/** Groups message ids by a key, ids ascending, groups in key order (Zulip's aggregate_* helpers). */
function groupIds<T>(entries: Map<number, T>, keyOf: (v: T) => string): Array<{ value: T; ids: number[] }> {
  const groups = new Map<string, { value: T; ids: number[] }>();
  for (const [id, value] of entries) {
    const key = keyOf(value);
    const group = groups.get(key) ?? { value, ids: [] };
    group.ids.push(id);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({ value: g.value, ids: g.ids.sort((a, b) => a - b) }));
}

const byNumber = (a: number, b: number) => a - b;
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Zulip's unread_msgs from sorted unread data (aggregate_unread_data). */
function aggregateUnreads(raw: RawUnreads, truncated: boolean) {
  const pms = groupIds(raw.pms, String)
    .sort((a, b) => byNumber(a.value, b.value))
    .map((g): IdGroup<"other_user_id" | "sender_id"> => ({ other_user_id: g.value, sender_id: g.value, unread_message_ids: g.ids }));
  const streams = groupIds(raw.streams, (s) => JSON.stringify([s.stream_id, s.topic]))
    .sort((a, b) => byNumber(a.value.stream_id, b.value.stream_id) || byString(a.value.topic, b.value.topic))
    .map((g) => ({ stream_id: g.value.stream_id, topic: g.value.topic, unread_message_ids: g.ids }));
  const huddles = groupIds(raw.huddles, (key) => key)
    .sort((a, b) => byString(a.value, b.value))
    .map((g) => ({ user_ids_string: g.value, unread_message_ids: g.ids }));
  return {
    pms,
    streams,
    huddles,
    mentions: [...raw.mentions].sort(byNumber),
    count: raw.pms.size + raw.unmuted.size + raw.huddles.size,
    old_unreads_missing: truncated,
  };
}

/** The unread_msgs of one user. */
async function unreadMsgs(ctx: SnapshotCtx, actor: UserRow) {
  const { rows, truncated } = await unreadRows(ctx.db, ctx.realm.id, actor.id, { limit: MAX_UNREAD_MESSAGES });
  return aggregateUnreads(await classifyUnreads(ctx.db, ctx.realm.id, actor.id, rows), truncated);
}

/** The register snapshot's message-related keys, read at once; anonymous (web-public) queues get empty values. */
export const messagesState: StateProvider = {
  async fetch(ctx, opts, want) {
    const actor = ctx.actor;
    const explicit = (opts.fetch_event_types ?? opts.event_types) !== null;
    // Zulip leaves muted_topics out for clients that explicitly ask for user_topic (FL 134).
    const mutedTopics = want("muted_topics") && (!explicit || !want("user_topic"));
    return readWanted({
      max_message_id: want("message") && (() => (actor ? maxReceivedMessageId(ctx.db, ctx.realm.id, actor.id) : -1)),
      unread_msgs:
        want("message") &&
        want("update_message_flags") &&
        (() => (actor ? unreadMsgs(ctx, actor) : aggregateUnreads({ pms: new Map(), streams: new Map(), huddles: new Map(), unmuted: new Set(), mentions: new Set() }, false))),
      starred_messages: want("starred_messages") && (() => (actor ? starredMessageIds(ctx.db, ctx.realm.id, actor.id) : [])),
      recent_private_conversations: want("recent_private_conversations") && (() => (actor ? recentDirectConversations(ctx.db, ctx.realm.id, actor.id) : [])),
      user_topics: want("user_topic") && (() => (actor ? userTopicsState(ctx.db, ctx.realm, actor.id) : [])),
      muted_topics: mutedTopics && (() => (actor ? mutedTopicsState(ctx.db, ctx.realm, actor.id) : [])),
    });
  },
};

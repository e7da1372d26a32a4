/**
 * The left sidebar: the views (combined feed, mentions, starred), the subscribed channels with
 * the current channel's topics, and the direct conversations, each with its unread count.
 */
import { useEffect } from "preact/hooks";
import { api } from "../api/client.ts";
import { narrow } from "../state/feed.ts";
import { dmKey, narrowHash, sameNarrow, type Narrow } from "../state/narrow.ts";
import { dmTitle, setEntry, sortedDms, sortedSubscriptions, streamName, topics } from "../state/store.ts";
import { topicKey, unreadCounts, unreadTopics } from "../state/unread.ts";

/** Topics listed under the current channel besides the unread ones. */
const TOPICS_SHOWN = 8;

/** One sidebar link: its accessible name carries the unread count ("general, 3 unread"). */
function Item({ to, label, count, icon, color, level = 0 }: { to: Narrow; label: string; count: number; icon?: string; color?: string; level?: number }) {
  const active = sameNarrow(to, narrow.value);
  return (
    <a
      href={narrowHash(to, streamName)}
      class={`sidebar-item level-${level}${active ? " active" : ""}${count > 0 ? " has-unread" : ""}`}
      aria-current={active ? "page" : undefined}
      aria-label={count > 0 ? `${label}, ${count} unread` : label}
    >
      {icon !== undefined && (
        <span class="sidebar-icon" style={color ? { color } : undefined} aria-hidden="true">
          {icon}
        </span>
      )}
      <span class="sidebar-label">{label}</span>
      {count > 0 && (
        <span class="unread-count" aria-hidden="true">
          {count}
        </span>
      )}
    </a>
  );
}

/** Loads a channel's topic list the first time it is opened. */
function useTopics(streamId: number | null): void {
  useEffect(() => {
    if (streamId === null || topics.value.has(streamId)) return;
    let live = true;
    api.topics(streamId).then(
      (res) => live && setEntry(topics, streamId, res.topics),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [streamId]);
}

function ChannelTopics({ streamId }: { streamId: number }) {
  const counts = unreadCounts.value.topics;
  const fetched = topics.value.get(streamId) ?? [];
  const names = new Map<string, string>();
  for (const t of fetched.slice(0, TOPICS_SHOWN)) names.set(t.name.toLowerCase(), t.name);
  for (const [lower, name] of unreadTopics(streamId)) if (!names.has(lower)) names.set(lower, name);
  const current = narrow.value.kind === "topic" ? narrow.value.topic : null;
  if (current !== null && !names.has(current.toLowerCase())) names.set(current.toLowerCase(), current);
  if (names.size === 0) return null;
  return (
    <ul class="topic-list" aria-label={`Topics in ${streamName(streamId)}`}>
      {[...names.values()].map((name) => (
        <li key={name}>
          <Item to={{ kind: "topic", streamId, topic: name }} label={name === "" ? "general chat" : name} count={counts.get(topicKey(streamId, name)) ?? 0} level={1} />
        </li>
      ))}
    </ul>
  );
}

/** The sidebar. */
export function Sidebar() {
  const counts = unreadCounts.value;
  const n = narrow.value;
  const openStream = n.kind === "channel" || n.kind === "topic" ? n.streamId : null;
  useTopics(openStream);
  return (
    <nav class="left-sidebar" aria-label="Channels and conversations">
      <ul class="views">
        <li>
          <Item to={{ kind: "feed" }} label="Combined feed" count={counts.total} icon="≡" />
        </li>
        <li>
          <Item to={{ kind: "mentions" }} label="Mentions" count={counts.mentions} icon="@" />
        </li>
        <li>
          <Item to={{ kind: "starred" }} label="Starred messages" count={0} icon="★" />
        </li>
      </ul>
      <h2 class="sidebar-heading" id="channels-heading">
        Channels
      </h2>
      <ul aria-labelledby="channels-heading">
        {sortedSubscriptions.value.map((s) => (
          <li key={s.stream_id}>
            <Item to={{ kind: "channel", streamId: s.stream_id }} label={s.name} count={counts.streams.get(s.stream_id) ?? 0} icon={s.invite_only ? "🔒" : "#"} color={s.color} />
            {openStream === s.stream_id && <ChannelTopics streamId={s.stream_id} />}
          </li>
        ))}
      </ul>
      <h2 class="sidebar-heading" id="dms-heading">
        Direct messages
      </h2>
      <ul aria-labelledby="dms-heading">
        {sortedDms.value.map((c) => (
          <li key={dmKey(c.userIds)}>
            <Item to={{ kind: "dm", userIds: c.userIds }} label={dmTitle(c.userIds)} count={counts.dms.get(dmKey(c.userIds)) ?? 0} icon="●" />
          </li>
        ))}
        {sortedDms.value.length === 0 && <li class="sidebar-empty">No conversations yet</li>}
      </ul>
    </nav>
  );
}

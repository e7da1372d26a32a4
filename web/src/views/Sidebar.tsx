/**
 * The left sidebar: the views (Inbox, Recent conversations, combined feed, mentions, starred),
 * the subscribed channels, each with its menu (ChannelMenu.tsx; muted ones dimmed) and expandable
 * to its topics (the current channel's shown; each topic with its menu: TopicMenu.tsx; muted ones
 * dimmed), and the
 * direct conversations, each with its unread count.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { BrowseButton } from "./ChannelBrowser.tsx";
import { ChannelMenuButton } from "./ChannelMenu.tsx";
import { ComposeViewLinks } from "./compose/ViewLinks.tsx";
import { narrow } from "../state/feed.ts";
import { sidebarOpen } from "../state/layout.ts";
import { dmKey, narrowHash, sameNarrow, type Narrow } from "../state/narrow.ts";
import { presenceOf, type PresenceStatus } from "../state/presence.ts";
import { dmTitle, setEntry, sortedDms, sortedSubscriptions, streamName, topics } from "../state/store.ts";
import { isTopicMuted } from "../state/muting.ts";
import { fetchTopics } from "../state/topics.ts";
import { topicKey, unreadCounts, unreadTopics } from "../state/unread.ts";
import { inboxTotal } from "../state/inbox.ts";
import { TopicMarks, TopicMenuButton } from "./TopicMenu.tsx";
import { view, viewHash } from "../state/view.ts";
import "./Sidebar.css";

/** What a presence dot means, for its tooltip. */
export const PRESENCE_TITLES: Record<PresenceStatus, string> = { active: "Active", idle: "Idle", offline: "Offline" };

/** Topics listed under the current channel besides the unread ones. */
const TOPICS_SHOWN = 8;

/** One sidebar link (to a narrow, or to the Inbox or Recent conversations): its accessible name carries the unread count ("general, 3 unread"). */
function Item({ to, label, count, icon, color, level = 0, presence }: { to: Narrow | "inbox" | "recent"; label: string; count: number; icon?: string; color?: string; level?: number; presence?: PresenceStatus }) {
  const active = typeof to === "string" ? view.value === to : view.value === "messages" && sameNarrow(to, narrow.value);
  return (
    <a
      href={typeof to === "string" ? viewHash(to) : narrowHash(to, streamName)}
      class={`sidebar-item level-${level}${active ? " active" : ""}${count > 0 ? " has-unread" : ""}`}
      aria-current={active ? "page" : undefined}
      aria-label={count > 0 ? `${label}, ${count} unread` : label}
    >
      {presence !== undefined && <span class={`sidebar-icon presence-dot presence-${presence}`} title={PRESENCE_TITLES[presence]} aria-hidden="true" />}
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
    fetchTopics(streamId).then(
      (list) => live && setEntry(topics, streamId, list),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [streamId]);
}

/** A channel's topics: the latest TOPICS_SHOWN (all of them once asked), the unread ones and the current one. */
function ChannelTopics({ streamId }: { streamId: number }) {
  useTopics(streamId);
  const [all, setAll] = useState(false);
  const counts = unreadCounts.value.topics;
  const fetched = topics.value.get(streamId) ?? [];
  const names = new Map<string, string>();
  for (const t of all ? fetched : fetched.slice(0, TOPICS_SHOWN)) names.set(t.name.toLowerCase(), t.name);
  for (const [lower, name] of unreadTopics(streamId)) if (!names.has(lower)) names.set(lower, name);
  const current = narrow.value.kind === "topic" ? narrow.value.topic : null;
  if (current !== null && !names.has(current.toLowerCase())) names.set(current.toLowerCase(), current);
  const more = !all && fetched.length > TOPICS_SHOWN;
  return (
    <ul class="topic-list" id={`topics-${streamId}`} aria-label={`Topics in ${streamName(streamId)}`}>
      {[...names.values()].map((name) => (
        <li key={name} class={`topic-row${isTopicMuted(streamId, name) ? " muted-topic" : ""}`}>
          <Item to={{ kind: "topic", streamId, topic: name }} label={name === "" ? "general chat" : name} count={counts.get(topicKey(streamId, name)) ?? 0} level={1} />
          <TopicMarks streamId={streamId} topic={name} />
          <TopicMenuButton streamId={streamId} topic={name} messageId={fetched.find((t) => t.name.toLowerCase() === name.toLowerCase())?.max_id} />
        </li>
      ))}
      {names.size === 0 && <li class="sidebar-empty level-1">{topics.value.has(streamId) ? "No topics yet" : "Loading topics…"}</li>}
      {more && (
        <li>
          <button type="button" class="button-quiet sidebar-more" onClick={() => setAll(true)}>
            All topics of {streamName(streamId)}
          </button>
        </li>
      )}
    </ul>
  );
}

/** The button that shows or hides a channel's topics under it. */
function TopicsToggle({ streamId, name, open, onToggle }: { streamId: number; name: string; open: boolean; onToggle: () => void }) {
  return (
    <button type="button" class="sidebar-toggle button-quiet" aria-expanded={open} aria-controls={`topics-${streamId}`} aria-label={`Topics of ${name}`} onClick={onToggle}>
      <span class={`sidebar-chevron${open ? " open" : ""}`} aria-hidden="true">
        ›
      </span>
    </button>
  );
}

/** The sidebar. */
export function Sidebar() {
  const counts = unreadCounts.value;
  const n = narrow.value;
  const openStream = view.value === "messages" && (n.kind === "channel" || n.kind === "topic") ? n.streamId : null;
  // Channels whose topics the user showed or hid with their toggle; otherwise the open channel's show.
  const [expanded, setExpanded] = useState<ReadonlyMap<number, boolean>>(new Map());
  const topicsShown = (id: number) => expanded.get(id) ?? id === openStream;
  const navRef = useRef<HTMLElement>(null);
  const wasOpen = useRef(false);
  const open = sidebarOpen.value;
  useEffect(() => {
    // Opened as a menu, it takes the focus; closed, the focus it held (lost with it) goes back to the menu button.
    if (open) (navRef.current?.querySelector<HTMLElement>("a[aria-current]") ?? navRef.current?.querySelector<HTMLElement>("a"))?.focus();
    else if (wasOpen.current && (document.activeElement === document.body || navRef.current?.contains(document.activeElement))) {
      document.querySelector<HTMLElement>(".menu-button")?.focus();
    }
    wasOpen.current = open;
  }, [open]);
  return (
    <nav
      ref={navRef}
      id="left-sidebar"
      class={`left-sidebar${sidebarOpen.value ? " open" : ""}`}
      aria-label="Channels and conversations"
      // On narrow screens the sidebar is a menu: following one of its links closes it.
      onClick={(e) => {
        if (e.target instanceof Element && e.target.closest("a") !== null) sidebarOpen.value = false;
      }}
    >
      <ul class="views">
        <li>
          <Item to="inbox" label="Inbox" count={inboxTotal.value} icon="▤" />
        </li>
        <li>
          <Item to="recent" label="Recent conversations" count={0} icon="◷" />
        </li>
        <li>
          <Item to={{ kind: "feed" }} label="Combined feed" count={counts.total} icon="≡" />
        </li>
        <li>
          <Item to={{ kind: "mentions" }} label="Mentions" count={counts.mentions} icon="@" />
        </li>
        <li>
          <Item to={{ kind: "starred" }} label="Starred messages" count={0} icon="★" />
        </li>
        <ComposeViewLinks />
      </ul>
      <h2 class="sidebar-heading" id="channels-heading">
        Channels
      </h2>
      <ul aria-labelledby="channels-heading">
        {sortedSubscriptions.value.map((s) => (
          <li key={s.stream_id}>
            <div class={`sidebar-channel channel-row${s.is_muted ? " muted-channel" : ""}`}>
              <Item to={{ kind: "channel", streamId: s.stream_id }} label={s.name} count={counts.streams.get(s.stream_id) ?? 0} icon={s.invite_only ? "🔒" : "#"} color={s.color} />
              <TopicsToggle streamId={s.stream_id} name={s.name} open={topicsShown(s.stream_id)} onToggle={() => setExpanded(new Map(expanded).set(s.stream_id, !topicsShown(s.stream_id)))} />
              <ChannelMenuButton streamId={s.stream_id} />
            </div>
            {topicsShown(s.stream_id) && <ChannelTopics streamId={s.stream_id} />}
          </li>
        ))}
        {sortedSubscriptions.value.length === 0 && <li class="sidebar-empty">You have not joined a channel yet</li>}
      </ul>
      <BrowseButton />
      <h2 class="sidebar-heading" id="dms-heading">
        Direct messages
      </h2>
      <ul aria-labelledby="dms-heading">
        {sortedDms.value.map((c) => (
          <li key={dmKey(c.userIds)}>
            <Item
              to={{ kind: "dm", userIds: c.userIds }}
              label={dmTitle(c.userIds)}
              count={counts.dms.get(dmKey(c.userIds)) ?? 0}
              {...(c.userIds.length === 1 ? { presence: presenceOf(c.userIds[0]) } : { icon: "●" })}
            />
          </li>
        ))}
        {sortedDms.value.length === 0 && <li class="sidebar-empty">No conversations yet</li>}
      </ul>
    </nav>
  );
}

/**
 * The message feed: messages grouped by conversation under recipient bars, older pages loaded
 * when the top comes near, the view kept at the bottom as messages arrive, and messages marked
 * read once seen.
 */
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import type { Message } from "../api/types.ts";
import { foundOldest, loadError, loading, loadOlder, messages, narrow, selectedId } from "../state/feed.ts";
import { dmKey, dmUserIds, narrowHash, type Narrow } from "../state/narrow.ts";
import { dmTitle, me, streamName, subscriptions } from "../state/store.ts";
import { readingPaused } from "../state/message-menu.ts";
import { markSeen } from "../state/unread.ts";
import { dayLabel } from "./format.ts";
import { MessageItem } from "./MessageItem.tsx";
import { TopicMarks, TopicMenuButton } from "./TopicMenu.tsx";
import { TypingNotice } from "./TypingNotice.tsx";

/** Within this many seconds, a sender's next message in a conversation hides their name. */
const CONTINUATION_SECONDS = 10 * 60;
/** Load older messages when the top is this close, in px. */
const LOAD_OLDER_MARGIN_PX = 600;
/** A reader this close to the bottom stays at the bottom as messages arrive, in px. */
const STICK_TO_BOTTOM_PX = 80;

type Group = { key: string; to: Narrow; first: Message; messages: Message[] };

function conversation(m: Message, myId: number): { key: string; to: Narrow } {
  if (m.type === "stream" && m.stream_id !== undefined) return { key: `s${m.stream_id}\n${m.subject.toLowerCase()}`, to: { kind: "topic", streamId: m.stream_id, topic: m.subject } };
  const userIds = dmUserIds(m, myId);
  return { key: `d${dmKey(userIds)}`, to: { kind: "dm", userIds } };
}

function groupMessages(list: readonly Message[], myId: number): Group[] {
  const groups: Group[] = [];
  for (const m of list) {
    const { key, to } = conversation(m, myId);
    const last = groups[groups.length - 1];
    const sameDay = last !== undefined && dayLabel(last.messages[last.messages.length - 1].timestamp) === dayLabel(m.timestamp);
    if (last !== undefined && last.key === key && sameDay) last.messages.push(m);
    else groups.push({ key, to, first: m, messages: [m] });
  }
  return groups;
}

function RecipientBar({ group }: { group: Group }) {
  const to = group.to;
  const date = dayLabel(group.first.timestamp);
  if (to.kind === "topic") {
    const color = subscriptions.value.get(to.streamId)?.color ?? "#c2c2c2";
    return (
      <header class="recipient-bar" style={{ "--channel-color": color }}>
        <a class="recipient-channel" href={narrowHash({ kind: "channel", streamId: to.streamId }, streamName)}>
          # {streamName(to.streamId)}
        </a>
        <span class="recipient-sep" aria-hidden="true">
          ›
        </span>
        <a class="recipient-topic" href={narrowHash(to, streamName)}>
          {to.topic === "" ? "general chat" : to.topic}
        </a>
        <TopicMarks streamId={to.streamId} topic={to.topic} />
        <TopicMenuButton streamId={to.streamId} topic={to.topic} messageId={group.first.id} />
        <span class="recipient-date">{date}</span>
      </header>
    );
  }
  const title = to.kind === "dm" ? dmTitle(to.userIds) : "";
  return (
    <header class="recipient-bar dm">
      <a class="recipient-topic" href={narrowHash(to)}>
        Direct messages with {title}
      </a>
      <span class="recipient-date">{date}</span>
    </header>
  );
}

/** Marks messages read once at least half of them (or half the view) has been on screen. */
function useReadMarking(scroller: { current: HTMLElement | null }, list: readonly Message[], enabled: boolean): void {
  useEffect(() => {
    const root = scroller.current;
    if (root === null || !enabled) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (document.visibilityState !== "visible") return;
        for (const entry of entries) {
          const seen = entry.intersectionRatio >= 0.5 || entry.intersectionRect.height >= root.clientHeight / 2;
          const id = entry.target instanceof HTMLElement ? Number(entry.target.dataset.messageId) : Number.NaN;
          if (entry.isIntersecting && seen && Number.isInteger(id)) {
            markSeen(id);
            observer.unobserve(entry.target);
          }
        }
      },
      { root, threshold: [0, 0.5, 1] },
    );
    // Observing afresh reports what is on screen now: at first, and when the tab is shown again
    // (messages that came into view while it was hidden were not seen).
    const observeAll = () => {
      for (const el of root.querySelectorAll<HTMLElement>("article.message.unread")) {
        observer.unobserve(el);
        observer.observe(el);
      }
    };
    const onVisibility = () => document.visibilityState === "visible" && observeAll();
    observeAll();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      observer.disconnect();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [list, enabled]);
}

/** Keeps the scroll position sensible: bottom or first unread on load, steady when older pages come in. */
function useScrollKeeping(scroller: { current: HTMLElement | null }, list: readonly Message[]): void {
  const previous = useRef<{ first: number | null; last: number | null; height: number; atBottom: boolean }>({ first: null, last: null, height: 0, atBottom: true });
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const prev = previous.current;
    const first = list[0]?.id ?? null;
    const last = list[list.length - 1]?.id ?? null;
    if (prev.last === null || (first !== prev.first && last !== prev.last)) {
      // A new narrow: the first unread message, else the bottom.
      const unread = el.querySelector<HTMLElement>("article.message.unread");
      if (unread) unread.scrollIntoView({ block: "start" });
      else el.scrollTop = el.scrollHeight;
    } else if (first !== prev.first && last === prev.last) {
      el.scrollTop += el.scrollHeight - prev.height;
    } else if (last !== prev.last && prev.atBottom) {
      el.scrollTop = el.scrollHeight;
    }
    previous.current = { first, last, height: el.scrollHeight, atBottom: el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_TO_BOTTOM_PX };
  }, [list]);
  useEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const onScroll = () => {
      previous.current.atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_TO_BOTTOM_PX;
      previous.current.height = el.scrollHeight;
      if (el.scrollTop < LOAD_OLDER_MARGIN_PX) void loadOlder();
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    // Content that grows after it is shown (an inline image loading, an edit, reactions) keeps a
    // reader who was at the bottom there, so the newest message stays in view and is read.
    const grown = new ResizeObserver(() => {
      if (previous.current.atBottom) el.scrollTop = el.scrollHeight;
    });
    const list = el.querySelector(".message-list");
    if (list !== null) grown.observe(list);
    return () => {
      el.removeEventListener("scroll", onScroll);
      grown.disconnect();
    };
  }, []);
}

/**
 * Marks the selected message for assistive technology (aria-current) and gives it keyboard focus
 * when the arrows moved it there, so the selection is visible and announced.
 */
function useSelectionMark(scroller: { current: HTMLElement | null }, list: readonly Message[]): void {
  const id = selectedId.value;
  useEffect(() => {
    const root = scroller.current;
    if (root === null) return;
    for (const el of root.querySelectorAll("article[aria-current]")) if (el.getAttribute("data-message-id") !== String(id)) el.removeAttribute("aria-current");
    if (id === null) return;
    const el = root.querySelector<HTMLElement>(`article[data-message-id="${id}"]`);
    if (el === null) return;
    el.setAttribute("aria-current", "true");
    el.tabIndex = -1;
  }, [id, list]);
}

function emptyText(n: Narrow): string {
  switch (n.kind) {
    case "search":
      return "No messages match your search.";
    case "starred":
      return "You have no starred messages.";
    case "mentions":
      return "You have no messages that mention you.";
    default:
      return "No messages here yet. Start the conversation!";
  }
}

/** The feed of the current narrow. */
export function Feed() {
  const scroller = useRef<HTMLDivElement>(null);
  const list = messages.value;
  const myId = me.value?.user_id ?? 0;
  const n = narrow.value;
  useScrollKeeping(scroller, list);
  useReadMarking(scroller, list, n.kind !== "search" && !readingPaused(n));
  useSelectionMark(scroller, list);
  useEffect(() => {
    // A short first page leaves nothing to scroll: fetch older ones until it fills the view.
    const el = scroller.current;
    if (el && loading.value === null && !foundOldest.value && list.length > 0 && el.scrollHeight <= el.clientHeight) void loadOlder();
  }, [list]);
  return (
    <>
      <div class="feed-scroll" ref={scroller}>
        <div class="feed-start">
          {loading.value === "older" && <p class="feed-note">Loading older messages…</p>}
          {foundOldest.value && list.length > 0 && <p class="feed-note">This is the beginning of the conversation.</p>}
        </div>
        <div role="log" aria-label="Messages" aria-busy={loading.value !== null} class="message-list">
          {groupMessages(list, myId).map((g) => (
            <section key={`${g.key}@${g.first.id}`} class="message-group">
              <RecipientBar group={g} />
              {g.messages.map((m, i) => {
                const before = g.messages[i - 1];
                const continued = before !== undefined && before.sender_id === m.sender_id && m.timestamp - before.timestamp < CONTINUATION_SECONDS;
                return <MessageItem key={m.id} message={m} continued={continued} />;
              })}
            </section>
          ))}
        </div>
        {loading.value === "initial" && <p class="feed-note">Loading…</p>}
        {loading.value === null && list.length === 0 && loadError.value === null && <p class="feed-empty">{emptyText(n)}</p>}
        {loadError.value !== null && (
          <p class="form-error" role="alert">
            {loadError.value}
          </p>
        )}
      </div>
      <TypingNotice />
    </>
  );
}

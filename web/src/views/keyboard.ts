/**
 * Keyboard shortcuts outside text fields, as Zulip's: c (compose in the current conversation),
 * x (new direct message), r or Enter (reply to the selected message), n (next unread topic),
 * arrows or j/k (select messages; the selected one takes focus), End (the last message),
 * / (search), Esc (close the menu, clear the selection, then back to the combined feed; in
 * the compose box it leaves the box), ? (the shortcuts' help), and on the selected message (the
 * last one when none is): e (edit it, or your last message; its source when it cannot be
 * edited), * (star), : (react), m (mute or unmute its topic), Shift+U (mark unread from it).
 * In the Inbox and Recent conversations, which show no messages, the keys that act on the feed
 * do nothing, `c` starts a new topic and Esc only closes the menu.
 */
import type { Message } from "../api/types.ts";
import * as compose from "../state/compose.ts";
import { errorText } from "../state/errors.ts";
import { ensureGroups } from "../state/groups.ts";
import { setStarred } from "../state/message-changes.ts";
import { editingId, messageDialog, reactingId, showNotice } from "../state/message-menu.ts";
import { canEditContent, canEditTopic } from "../state/message-rules.ts";
import { toggleTopicMute } from "../state/muting.ts";
import { messages, narrow, selectedId } from "../state/feed.ts";
import { shortcutsOpen, sidebarOpen } from "../state/layout.ts";
import { FEED, narrowHash, sameNarrow } from "../state/narrow.ts";
import { me, sortedSubscriptions, streamName } from "../state/store.ts";
import { nextUnreadTopic } from "../state/unread.ts";
import { view } from "../state/view.ts";
import { markUnread } from "./MessageActions.tsx";

function typingTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function moveSelection(step: number): void {
  const list = messages.value;
  if (list.length === 0) return;
  const at = list.findIndex((m) => m.id === selectedId.value);
  const next = at < 0 ? list.length - 1 : Math.max(0, Math.min(list.length - 1, at + step));
  select(list[next].id);
}

function select(id: number): void {
  selectedId.value = id;
  const el = document.querySelector<HTMLElement>(`article[data-message-id="${id}"]`);
  if (el === null) return;
  el.scrollIntoView({ block: "nearest" });
  el.tabIndex = -1;
  el.focus({ preventScroll: true });
}

/** `c`: a message to the current conversation (a topic's or conversation's text, else a new topic). */
function composeHere(): void {
  const n = narrow.value;
  if (view.value !== "messages" || (n.kind !== "topic" && n.kind !== "channel" && n.kind !== "dm")) return compose.newTopic();
  compose.followNarrow(n);
  compose.focusRequest.value = { field: n.kind === "channel" ? "topic" : "content", n: compose.focusRequest.value.n + 1 };
}

function escape(): void {
  if (sidebarOpen.value) sidebarOpen.value = false;
  else if (view.value !== "messages") return;
  else if (selectedId.value !== null) {
    selectedId.value = null;
    if (document.activeElement instanceof HTMLElement && document.activeElement.matches("article")) document.activeElement.blur();
  } else if (!sameNarrow(narrow.value, FEED)) location.hash = narrowHash(FEED);
}

function reply(): void {
  const list = messages.value;
  const message = list.find((m) => m.id === selectedId.value) ?? list[list.length - 1];
  const myId = me.value?.user_id;
  if (message && myId !== undefined) compose.replyTo(message, myId);
}

function nextUnread(): void {
  const n = narrow.value;
  const from = n.kind === "topic" ? { streamId: n.streamId, topic: n.topic } : n.kind === "channel" ? { streamId: n.streamId, topic: "\u0000" } : null;
  const order = sortedSubscriptions.value.filter((s) => !s.is_muted).map((s) => s.stream_id);
  const next = nextUnreadTopic(from, order);
  if (next) location.hash = narrowHash({ kind: "topic", ...next }, streamName);
}

/** The selected message, else the last one (selected from now on). */
function target(): Message | undefined {
  const list = messages.value;
  const message = list.find((m) => m.id === selectedId.value) ?? list[list.length - 1];
  if (message !== undefined && selectedId.value !== message.id) select(message.id);
  return message;
}

/** `e`: edit the selected message, or the user's last one; a message that cannot be edited shows its source. */
function edit(): void {
  const myId = me.value?.user_id;
  const list = messages.value;
  const message = list.find((m) => m.id === selectedId.value) ?? [...list].reverse().find((m) => m.sender_id === myId);
  if (message === undefined || myId === undefined) return;
  void ensureGroups();
  select(message.id);
  if (canEditContent(message, myId) || canEditTopic(message, myId)) editingId.value = message.id;
  else messageDialog.value = { kind: "source", message };
}

function star(): void {
  const message = target();
  if (message) setStarred(message.id, !message.flags.includes("starred"));
}

function react(): void {
  const message = target();
  if (message) reactingId.value = message.id;
}

/** `m`: mute or unmute the topic of the selected message (or of the topic being read). */
function muteTopic(): void {
  const message = target();
  const n = narrow.value;
  const where = message?.type === "stream" && message.stream_id !== undefined ? { streamId: message.stream_id, topic: message.subject } : n.kind === "topic" ? n : null;
  if (where) toggleTopicMute(where.streamId, where.topic).catch((err: unknown) => showNotice(errorText(err, "Could not change the topic's setting.")));
}

function unreadFromHere(): void {
  const message = target();
  if (message) markUnread(message);
}

const ACTIONS: Record<string, () => void> = {
  c: composeHere,
  x: compose.newDirect,
  r: reply,
  Enter: reply,
  n: nextUnread,
  ArrowDown: () => moveSelection(1),
  j: () => moveSelection(1),
  ArrowUp: () => moveSelection(-1),
  k: () => moveSelection(-1),
  End: () => moveSelection(messages.value.length),
  "/": () => document.getElementById("search-input")?.focus(),
  Escape: escape,
  "?": () => (shortcutsOpen.value = true),
  e: edit,
  "*": star,
  ":": react,
  m: muteTopic,
  U: unreadFromHere,
};

/** The keys that act on the feed's messages (selecting, replying, the selected message's actions). */
const FEED_KEYS = new Set(["r", "Enter", "ArrowDown", "j", "ArrowUp", "k", "End", "e", "*", ":", "m", "U"]);

/** Listens for the shortcuts on the document; returns the function that stops listening. */
export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typingTarget(e.target)) return;
    // A dialog or popover handles its own keys (Esc closes it); shortcuts wait until it is gone.
    if (e.defaultPrevented || document.querySelector("[aria-modal='true']") !== null) return;
    // Enter on a link or button activates it.
    if (e.key === "Enter" && e.target instanceof HTMLElement && e.target.closest("a, button") !== null) return;
    // The Inbox and Recent conversations show no messages: the keys that act on the feed's wait for it.
    if (view.value !== "messages" && FEED_KEYS.has(e.key)) return;
    const action = ACTIONS[e.key];
    if (action && me.value !== null) {
      e.preventDefault();
      action();
    }
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

/**
 * Keyboard shortcuts outside text fields, as Zulip's: c (new topic), x (new direct message),
 * r or Enter (reply to the selected message), n (next unread topic), arrows or j/k (select
 * messages), / (search), Esc (clear the selection; in the compose box it leaves the box).
 */
import * as compose from "../state/compose.ts";
import { messages, narrow, selectedId } from "../state/feed.ts";
import { narrowHash } from "../state/narrow.ts";
import { me, streamName } from "../state/store.ts";
import { nextUnreadTopic } from "../state/unread.ts";

function typingTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function moveSelection(step: number): void {
  const list = messages.value;
  if (list.length === 0) return;
  const at = list.findIndex((m) => m.id === selectedId.value);
  const next = at < 0 ? list.length - 1 : Math.max(0, Math.min(list.length - 1, at + step));
  const id = list[next].id;
  selectedId.value = id;
  document.querySelector(`article[data-message-id="${id}"]`)?.scrollIntoView({ block: "nearest" });
}

function reply(): void {
  const list = messages.value;
  const message = list.find((m) => m.id === selectedId.value) ?? list[list.length - 1];
  const myId = me.value?.user_id;
  if (message && myId !== undefined) compose.replyTo(message, myId);
}

function nextUnread(): void {
  const n = narrow.value;
  const next = nextUnreadTopic(n.kind === "topic" ? { streamId: n.streamId, topic: n.topic } : null);
  if (next) location.hash = narrowHash({ kind: "topic", ...next }, streamName);
}

const ACTIONS: Record<string, () => void> = {
  c: compose.newTopic,
  x: compose.newDirect,
  r: reply,
  Enter: reply,
  n: nextUnread,
  ArrowDown: () => moveSelection(1),
  j: () => moveSelection(1),
  ArrowUp: () => moveSelection(-1),
  k: () => moveSelection(-1),
  "/": () => document.getElementById("search-input")?.focus(),
  Escape: () => (selectedId.value = null),
};

/** Listens for the shortcuts on the document; returns the function that stops listening. */
export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typingTarget(e.target)) return;
    // Enter on a link or button activates it.
    if (e.key === "Enter" && e.target instanceof HTMLElement && e.target.closest("a, button") !== null) return;
    const action = ACTIONS[e.key];
    if (action && me.value !== null) {
      e.preventDefault();
      action();
    }
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

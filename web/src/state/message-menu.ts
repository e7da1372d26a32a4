/**
 * The message actions menu's state and calls, as upstream's: which message is being edited or
 * reacted to (the menu and the keyboard open them), the dialog open over the feed (message
 * source, edit history, read receipts, moving messages, a link to copy by hand), a short
 * notice ("Copied link to message"), the permanent link to a message, marking unread from a
 * message onward (POST /messages/flags/narrow, with reading paused in that narrow until the user
 * leaves it, so the feed does not mark the messages read again at once), moving a message or
 * its topic (PATCH /messages/{id}), and reading a message's history and read receipts.
 */
import { effect, signal, type Signal } from "@preact/signals";
import { api } from "../api/client.ts";
import { actionsApi, type HistorySnapshot } from "../api/message-actions.ts";
import type { Message } from "../api/types.ts";
import { narrow } from "./feed.ts";
import { apiTerms, narrowHash, type Narrow } from "./narrow.ts";
import { streamName, userName } from "./store.ts";

/** The message whose in-place editor is open, or null. */
export const editingId = signal<number | null>(null);
/** The message whose emoji picker is open, or null. */
export const reactingId = signal<number | null>(null);

/** Opens (`on`) a message's editor or picker, or closes it if it is that message's. */
export function openFor(which: Signal<number | null>, messageId: number, on: boolean): void {
  if (on) which.value = messageId;
  else if (which.peek() === messageId) which.value = null;
}

/** What a move dialog moves: a message (and maybe those around it), or a whole topic. */
export type MoveTarget = { messageId: number; streamId: number; topic: string; wholeTopic: boolean };

/** The dialog open over the feed. */
export type MessageDialog =
  | { kind: "source"; message: Message }
  | { kind: "history"; message: Message }
  | { kind: "receipts"; message: Message }
  | { kind: "move"; target: MoveTarget }
  | { kind: "link"; link: string };

export const messageDialog = signal<MessageDialog | null>(null);

/** A short confirmation shown for a few seconds (a status, read by screen readers). */
export const notice = signal<string | null>(null);
const NOTICE_MS = 4000;
let noticeTimer: ReturnType<typeof setTimeout> | null = null;

/** Shows a short notice. */
export function showNotice(text: string): void {
  notice.value = text;
  if (noticeTimer !== null) clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => (notice.value = null), NOTICE_MS);
}

/**
 * The permanent link to a message as upstream writes it: its topic's hash, or for a direct
 * message every participant's id (the user's too) with "dm" or "group", then `/near/<id>`.
 */
export function messageLink(message: Message, myId: number): string {
  if (message.type === "stream" && message.stream_id !== undefined) {
    return `${location.origin}/${narrowHash({ kind: "topic", streamId: message.stream_id, topic: message.subject }, streamName)}/near/${message.id}`;
  }
  const ids = typeof message.display_recipient === "string" ? [myId] : message.display_recipient.map((u) => u.id).sort((a, b) => a - b);
  return `${location.origin}/#narrow/dm/${ids.join(",")}-${ids.length >= 3 ? "group" : "dm"}/near/${message.id}`;
}

/** Copies a message's link; where the clipboard is refused, a dialog shows the link to copy by hand. */
export async function copyMessageLink(message: Message, myId: number): Promise<void> {
  const link = messageLink(message, myId);
  try {
    await navigator.clipboard.writeText(link);
    showNotice("Copied link to message");
  } catch {
    messageDialog.value = { kind: "link", link };
  }
}

/** Messages marked unread per call; the server may cap it lower. */
const UNREAD_BATCH = 1000;

/** The narrow (its hash) where marking read is paused since the user marked messages unread there. */
const pausedNarrow = signal<string | null>(null);

/** Whether the feed of a narrow leaves messages unread when seen. */
export function readingPaused(n: Narrow): boolean {
  return pausedNarrow.value === narrowHash(n);
}

// Leaving the narrow resumes reading, as upstream.
let shownNarrow = narrowHash(narrow.peek());
effect(() => {
  const hash = narrowHash(narrow.value);
  if (hash === shownNarrow) return;
  shownNarrow = hash;
  pausedNarrow.value = null;
});

/** Marks a message and every later one of the current narrow unread, in batches. Rejects with the server's error. */
export async function markUnreadFrom(messageId: number): Promise<void> {
  const n = narrow.value;
  pausedNarrow.value = narrowHash(n);
  let anchor = messageId;
  let includeAnchor = true;
  for (;;) {
    const res = await actionsApi.flagsForNarrow({ anchor: String(anchor), include_anchor: includeAnchor, num_before: 0, num_after: UNREAD_BATCH, narrow: apiTerms(n), op: "remove", flag: "read" });
    if (res.found_newest || res.last_processed_id === null) return;
    anchor = res.last_processed_id;
    includeAnchor = false;
  }
}

/** How far a move reaches: this message, it and later ones in its topic, or the whole topic. */
export type PropagateMode = "change_one" | "change_later" | "change_all";

/** Where to move, how far, and which topics get the Notification Bot's notice. */
export type MoveRequest = { streamId: number; topic: string; mode: PropagateMode; notifyOld: boolean; notifyNew: boolean };

/** Moves messages (PATCH /messages/{id} with the new channel and topic); rejects with the server's error. */
export async function moveMessages(target: MoveTarget, to: MoveRequest): Promise<void> {
  await api.editMessage(target.messageId, {
    stream_id: to.streamId === target.streamId ? undefined : to.streamId,
    topic: to.topic === target.topic ? undefined : to.topic,
    propagate_mode: to.mode,
    send_notification_to_old_thread: to.notifyOld,
    send_notification_to_new_thread: to.notifyNew,
  });
}

/** A message's versions, oldest first. */
export async function editHistory(messageId: number): Promise<HistorySnapshot[]> {
  return (await actionsApi.history(messageId)).message_history;
}

/** The names of those who read a message, by name. */
export async function readerNames(messageId: number): Promise<string[]> {
  const { user_ids: ids } = await actionsApi.readReceipts(messageId);
  return ids.map(userName).sort((a, b) => a.localeCompare(b));
}

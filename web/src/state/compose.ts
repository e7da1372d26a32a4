/**
 * The compose box's state: where the message goes (channel and topic, or direct recipients),
 * its text, and sending. The recipient follows the narrow until the user changes it. Text is
 * inserted at the caret the view last reported (quote-and-reply, uploads, autocomplete).
 */
import { batch, effect, signal, untracked } from "@preact/signals";
import { api, ApiError } from "../api/client.ts";
import type { Message } from "../api/types.ts";
import { dmUserIds, narrowHash, type Narrow } from "./narrow.ts";
import { directDraftKey, loadDraft, saveDraft, topicDraftKey, unresolvedDraftKey, type Draft } from "./drafts.ts";
import { emailsOf, moveDraft, storeDraft, takeDraft } from "./server-drafts.ts";
import { me, sortedSubscriptions, streamName, users } from "./store.ts";

export const mode = signal<"stream" | "dm">("stream");
export const streamId = signal<number | null>(null);
export const topic = signal("");
/** Direct-message recipients as typed: emails or names, comma-separated. */
export const recipients = signal("");
export const content = signal("");
export const sending = signal(false);
export const sendError = signal<string | null>(null);
/** Bumped to ask the view to focus a field. */
export const focusRequest = signal<{ field: "topic" | "content" | "recipients"; n: number }>({ field: "content", n: 0 });

/** Where the view should put the caret in the text (bumped with each request); `focus`: focus the box too. */
export const caretRequest = signal<{ start: number; end: number; focus: boolean; n: number; text: string }>({ start: 0, end: 0, focus: false, n: 0, text: "" });
/** The caret (selection) in the text as the view last reported it. */
let caret = { start: 0, end: 0 };

/** The view reports the caret (on input, selection change and blur). */
export function setCaret(start: number, end: number): void {
  caret = { start, end };
}

/** The selection in the text as last reported (within the text). */
export function selection(): { start: number; end: number } {
  const length = content.value.length;
  return { start: Math.min(caret.start, length), end: Math.min(caret.end, length) };
}

/** Replaces the whole text and selects [start, end) in it, with the focus in the box (formatting). */
export function setText(text: string, start: number, end: number): void {
  content.value = text;
  caret = { start, end };
  caretRequest.value = { start, end, focus: true, n: caretRequest.value.n + 1, text };
}

/**
 * Replaces content[start, end) with text. The caret goes after it (and the box gets the focus),
 * unless `keepCaret`: then the user's caret stays where it was in their text (an upload that
 * finishes while they type).
 */
export function replaceRange(start: number, end: number, text: string, keepCaret = false): void {
  const current = content.value;
  const from = Math.max(0, Math.min(start, current.length));
  const to = Math.max(from, Math.min(end, current.length));
  content.value = current.slice(0, from) + text + current.slice(to);
  const shift = (at: number) => (at >= to ? at + text.length - (to - from) : Math.min(at, from));
  caret = keepCaret ? { start: shift(caret.start), end: shift(caret.end) } : { start: from + text.length, end: from + text.length };
  caretRequest.value = { ...caret, focus: !keepCaret, n: caretRequest.value.n + 1, text: content.value };
}

/** Inserts text at the caret (replacing the selection); `block` puts it on lines of its own. */
export function insertText(text: string, block = false): void {
  const { start, end } = caret.start <= content.value.length ? caret : { start: content.value.length, end: content.value.length };
  const before = content.value.slice(0, start);
  const after = content.value.slice(end);
  const lead = block && before !== "" && !before.endsWith("\n") ? "\n" : "";
  const trail = block && after !== "" && !after.startsWith("\n") ? "\n" : "";
  replaceRange(start, end, lead + text + trail);
}

function focus(field: "topic" | "content" | "recipients"): void {
  focusRequest.value = { field, n: focusRequest.value.n + 1 };
}

// --- Drafts: one per conversation (state/drafts.ts, saved on the server by server-drafts.ts) ---

/** Where the compose box sends to. */
type Recipient = Omit<Draft, "content">;

/** The conversation's key of the recipient (null: none named yet). */
function conversationKey(r: Recipient): string | null {
  if (r.mode === "stream") return r.streamId === null ? null : topicDraftKey(r.streamId, r.topic);
  if (r.recipients.trim() === "") return null;
  const resolved = resolveRecipients(r.recipients);
  return "ids" in resolved ? directDraftKey(resolved.ids, me.value?.user_id) : unresolvedDraftKey(r.recipients);
}

function recipientNow(): Recipient {
  return { mode: mode.value, streamId: streamId.value, topic: topic.value, recipients: recipients.value };
}

/** The key the text in the box is saved under. */
let draftKey: string | null = null;

// The text is saved as it is typed, under its conversation. A recipient the user edits takes the
// draft along (the old key is dropped); going to another conversation is `switchTo`'s, which
// moves the key first, so the draft left behind stays.
effect(() => {
  const r = recipientNow();
  const text = content.value;
  const userId = me.value?.user_id;
  if (userId === undefined) return;
  const key = conversationKey(r);
  // Saving reads and changes other signals (the drafts' lists): they are not this effect's inputs.
  untracked(() => {
    if (draftKey !== null && draftKey !== key) moveDraft(userId, draftKey, key);
    draftKey = key;
    if (key === null) return;
    const draft = text.trim() === "" ? null : { ...r, content: text };
    storeDraft(userId, key, draft);
    // Where the user last wrote, for a fresh start, and the topic last written to in each channel.
    const last = loadDraft(userId, "last");
    if (draft !== null || (last !== undefined && conversationKey(last) === key)) saveDraft(userId, "last", draft);
    if (r.mode === "stream") saveDraft(userId, `c${r.streamId}`, draft);
  });
});

/** Signed out: the box forgets its text and recipient (the draft stays saved for its user). */
export function forget(): void {
  draftKey = null;
  batch(() => {
    content.value = "";
    topic.value = "";
    recipients.value = "";
    streamId.value = null;
    mode.value = "stream";
  });
}

/** Points the compose box at another conversation, with that conversation's draft (or nothing). */
function switchTo(next: Recipient): void {
  batch(() => {
    mode.value = next.mode;
    streamId.value = next.streamId;
    topic.value = next.topic;
    recipients.value = next.recipients;
    const key = conversationKey(next);
    const userId = me.value?.user_id;
    if (key === draftKey) return;
    draftKey = key;
    content.value = (key !== null && userId !== undefined ? takeDraft(userId, key)?.content : undefined) ?? "";
  });
}

/** Opens a draft (from the Drafts view): its conversation in the compose box, with its text. */
export function openDraft(draft: Draft): void {
  batch(() => {
    switchTo(draft);
    content.value = draft.content;
  });
  replaceRange(draft.content.length, draft.content.length, "");
}

function channelRecipient(id: number | null): Recipient {
  const userId = me.value?.user_id;
  const last = id === null || userId === undefined ? undefined : loadDraft(userId, `c${id}`);
  return { mode: "stream", streamId: id, topic: last?.topic ?? "", recipients: recipients.value };
}

/** Points the compose box at a narrow's conversation, with its draft. */
export function followNarrow(narrow: Narrow): void {
  sendError.value = null;
  const stay = { ...recipientNow() };
  if (narrow.kind === "channel") {
    if (mode.value !== "stream" || streamId.value !== narrow.streamId) switchTo(channelRecipient(narrow.streamId));
  } else if (narrow.kind === "topic") switchTo({ ...stay, mode: "stream", streamId: narrow.streamId, topic: narrow.topic });
  else if (narrow.kind === "dm") switchTo({ ...stay, mode: "dm", recipients: emailsOf(narrow.userIds) });
  else if (streamId.value === null && mode.value === "stream") {
    // A fresh start: back to the last draft, else the first channel.
    const userId = me.value?.user_id;
    const last = userId === undefined ? undefined : loadDraft(userId, "last");
    switchTo(last ?? channelRecipient(sortedSubscriptions.value[0]?.stream_id ?? null));
  }
}

/** `c`: a new topic in the current channel. */
export function newTopic(): void {
  switchTo({ ...recipientNow(), mode: "stream", streamId: streamId.value ?? sortedSubscriptions.value[0]?.stream_id ?? null, topic: "" });
  focus("topic");
}

/** `x`: a new direct message. */
export function newDirect(): void {
  switchTo({ ...recipientNow(), mode: "dm", recipients: "" });
  focus("recipients");
}

/** `r`: reply to a message's conversation. */
export function replyTo(message: Message, me: number): void {
  if (message.type === "stream" && message.stream_id !== undefined) switchTo({ ...recipientNow(), mode: "stream", streamId: message.stream_id, topic: message.subject });
  else switchTo({ ...recipientNow(), mode: "dm", recipients: emailsOf(dmUserIds(message, me)) });
  focus("content");
}

/** A fence of backticks longer than any run of backticks in the text (at least three). */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}

/** The permanent link to a message, as upstream writes it (`.../#narrow/channel/1-general/topic/x/near/42`). */
export function messageLink(message: Message, me: number): string {
  const to: Narrow = message.type === "stream" && message.stream_id !== undefined ? { kind: "topic", streamId: message.stream_id, topic: message.subject } : { kind: "dm", userIds: dmUserIds(message, me) };
  return `${location.origin}/${narrowHash(to, streamName)}/near/${message.id}`;
}

/**
 * Zulip's quote-and-reply text: a silent mention of the sender, a link to the message and its
 * Markdown source in a quote block (zulip-flutter's quoteAndReply, Zulip web's the same), the
 * quoted mentions made silent so nobody is notified twice (as Zulip's help says).
 */
export function quoteText(message: Message, rawContent: string, me: number): string {
  const quoted = rawContent.replace(/(^|[^\w])@(\*)/g, "$1@_$2");
  const fence = fenceFor(quoted);
  return `@_**${message.sender_full_name}|${message.sender_id}** [said](${messageLink(message, me)}):\n${fence}quote\n${quoted}\n${fence}\n`;
}

/** Quote-and-reply: addresses the message's conversation and inserts the quote at the caret. */
export async function quoteAndReply(message: Message, me: number): Promise<void> {
  replyTo(message, me);
  try {
    const res = await api.message(message.id);
    insertText(quoteText(message, res.raw_content, me), true);
    focus("content");
  } catch (err) {
    sendError.value = err instanceof ApiError ? err.message : "Could not load the message to quote.";
  }
}

/** The user ids of the typed recipients, or the name that matches nobody. */
function resolveRecipients(text: string): { ids: number[] } | { unknown: string } {
  const ids: number[] = [];
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const lower = part.toLowerCase();
    const user = [...users.value.values()].find((u) => u.email.toLowerCase() === lower || u.full_name.toLowerCase() === lower);
    if (!user) return { unknown: part };
    ids.push(user.user_id);
  }
  return { ids };
}

/** Whether the shown sendError is a lost connection (cleared when the server is back; the text stays in the box). */
let networkFailure = false;

/** The server is reachable again: a "Cannot reach the server." from a send goes away. */
export function clearNetworkError(): void {
  if (networkFailure) sendError.value = null;
  networkFailure = false;
}

/** A message's parameters as POST /messages (and /scheduled_messages) take them. */
export type Outgoing = { type: "stream"; to: number; topic: string; content: string } | { type: "direct"; to: number[]; content: string };

/** The message in the box, to send; or why it cannot go (no channel, an unknown recipient). */
export function outgoing(): Outgoing | { error: string } {
  const text = content.value;
  if (mode.value === "stream") {
    if (streamId.value === null) return { error: "Choose a channel." };
    return { type: "stream", to: streamId.value, topic: topic.value.trim(), content: text };
  }
  const resolved = resolveRecipients(recipients.value);
  if ("unknown" in resolved) return { error: `Unknown recipient: ${resolved.unknown}` };
  if (resolved.ids.length === 0) return { error: "Add a recipient." };
  return { type: "direct", to: resolved.ids, content: text };
}

/** Sends the message; on success clears the text (the message arrives as an event). */
export async function send(): Promise<void> {
  if (content.value.trim() === "" || sending.value) return;
  const params = outgoing();
  if ("error" in params) return void (sendError.value = params.error);
  batch(() => {
    sending.value = true;
    sendError.value = null;
  });
  try {
    await api.send(params);
    content.value = "";
  } catch (err) {
    sendError.value = err instanceof ApiError ? err.message : "Could not send the message.";
    networkFailure = err instanceof ApiError && err.code === "NETWORK_ERROR";
  } finally {
    sending.value = false;
  }
}

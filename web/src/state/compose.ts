/**
 * The compose box's state: where the message goes (channel and topic, or direct recipients),
 * its text, and sending. The recipient follows the narrow until the user changes it.
 */
import { batch, signal } from "@preact/signals";
import { api, ApiError } from "../api/client.ts";
import type { Message } from "../api/types.ts";
import { dmUserIds, type Narrow } from "./narrow.ts";
import { sortedSubscriptions, users } from "./store.ts";

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

function focus(field: "topic" | "content" | "recipients"): void {
  focusRequest.value = { field, n: focusRequest.value.n + 1 };
}

function emailsOf(userIds: readonly number[]): string {
  return userIds.map((id) => users.value.get(id)?.email ?? String(id)).join(", ");
}

/** Points the compose box at a narrow's conversation (keeps the text). */
export function followNarrow(narrow: Narrow): void {
  batch(() => {
    sendError.value = null;
    if (narrow.kind === "channel" || narrow.kind === "topic") {
      mode.value = "stream";
      if (streamId.value !== narrow.streamId) topic.value = "";
      streamId.value = narrow.streamId;
      if (narrow.kind === "topic") topic.value = narrow.topic;
    } else if (narrow.kind === "dm") {
      mode.value = "dm";
      recipients.value = emailsOf(narrow.userIds);
    } else if (streamId.value === null) {
      mode.value = "stream";
      streamId.value = sortedSubscriptions.value[0]?.stream_id ?? null;
    }
  });
}

/** `c`: a new topic in the current channel. */
export function newTopic(): void {
  batch(() => {
    mode.value = "stream";
    streamId.value ??= sortedSubscriptions.value[0]?.stream_id ?? null;
    topic.value = "";
  });
  focus("topic");
}

/** `x`: a new direct message. */
export function newDirect(): void {
  batch(() => {
    mode.value = "dm";
    recipients.value = "";
  });
  focus("recipients");
}

/** `r`: reply to a message's conversation. */
export function replyTo(message: Message, me: number): void {
  batch(() => {
    if (message.type === "stream" && message.stream_id !== undefined) {
      mode.value = "stream";
      streamId.value = message.stream_id;
      topic.value = message.subject;
    } else {
      mode.value = "dm";
      recipients.value = emailsOf(dmUserIds(message, me));
    }
  });
  focus("content");
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

/** Sends the message; on success clears the text (the message arrives as an event). */
export async function send(): Promise<void> {
  const text = content.value;
  if (text.trim() === "" || sending.value) return;
  let params: Record<string, string | number | number[]>;
  if (mode.value === "stream") {
    if (streamId.value === null) return void (sendError.value = "Choose a channel.");
    params = { type: "stream", to: streamId.value, topic: topic.value.trim(), content: text };
  } else {
    const resolved = resolveRecipients(recipients.value);
    if ("unknown" in resolved) return void (sendError.value = `Unknown recipient: ${resolved.unknown}`);
    if (resolved.ids.length === 0) return void (sendError.value = "Add a recipient.");
    params = { type: "direct", to: resolved.ids, content: text };
  }
  batch(() => {
    sending.value = true;
    sendError.value = null;
  });
  try {
    await api.send(params);
    content.value = "";
  } catch (err) {
    sendError.value = err instanceof ApiError ? err.message : "Could not send the message.";
  } finally {
    sending.value = false;
  }
}

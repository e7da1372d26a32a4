/**
 * `message` events. The sender publishes one template: the message as HTML with full avatar URL
 * and the real topic, plus what each queue needs to make its own copy (raw Markdown, per-user
 * flags, the sending queue's local id). messageEventForQueue (wired in events/adapters.ts) turns
 * the template into what one queue receives, so flags and formats are exact per queue.
 */
import type { ApiMessage, MessagePresentOptions } from "../../present/messages.ts";

/** What a client receives. `local_message_id` only on the queue that sent the message. */
type MessageEvent = { type: "message"; message: ApiMessage; flags: readonly string[]; local_message_id?: string };

/** Per-queue data that never reaches a client. Plain JSON, so it crosses the Redis bus. */
type MessageEventVariants = {
  /** The raw Markdown, for queues with apply_markdown=false. */
  raw_content: string;
  /** Flags by user id (as a string key); users not listed (all_public_streams queues) get []. */
  user_flags: Record<string, readonly string[]>;
  /** Whether a client_gravatar queue gets avatar_url null (public address, gravatar avatar). */
  gravatar_computable: boolean;
  /** The realm's display name of the empty topic, for clients without empty_topic_name. */
  empty_topic_display_name: string;
  /** The sending client's queue and its local id, if it uses local echo. */
  sender_queue_id: string | null;
  local_id: string | null;
};

/** The published form of a message event. */
export type MessageEventTemplate = { type: "message"; message: ApiMessage; flags: string[]; variants: MessageEventVariants };

/** The options presentMessage must use for the template's `message`. */
export const TEMPLATE_PRESENT_OPTIONS: MessagePresentOptions = { applyMarkdown: true, clientGravatar: false, emptyTopicName: true };

/** Builds the template; `message` must be presented with TEMPLATE_PRESENT_OPTIONS. */
export function messageEventTemplate(message: ApiMessage, variants: MessageEventVariants): MessageEventTemplate {
  return { type: "message", message, flags: [], variants };
}

/** Every message event: the published template, or a queue's copy. */
export type AnyMessageEvent = MessageEventTemplate | MessageEvent;

/** A template's copies made so far, by what tells them apart (see copyKey); local echoes are not kept. */
const copiesByTemplate = new WeakMap<MessageEventTemplate, Map<string, MessageEvent>>();

/**
 * What one queue sees of a message event template (a queue's copy passes unchanged). Queues
 * that see the same get the same object: events are never changed once made, and one copy per
 * variant, rather than per queue, is what a fan-out to thousands of queues can afford (its
 * JSON text is then built once too: events/pending-events.ts).
 */
export function messageEventForQueue(
  event: AnyMessageEvent,
  options: { apply_markdown: boolean; client_gravatar: boolean; capabilities: { empty_topic_name: boolean } },
  target: { id: string; userId: number },
): MessageEvent {
  if (!("variants" in event)) return event;
  const { variants } = event;
  const rawContent = !options.apply_markdown;
  const noAvatar = options.client_gravatar && variants.gravatar_computable;
  const topicName = event.message.type === "stream" && event.message.subject === "" && !options.capabilities.empty_topic_name;
  const flags = variants.user_flags[String(target.userId)] ?? [];
  if (variants.sender_queue_id === target.id && variants.local_id !== null) {
    return { type: "message", message: messageCopy(event, rawContent, noAvatar, topicName), flags, local_message_id: variants.local_id };
  }
  let copies = copiesByTemplate.get(event);
  if (copies === undefined) {
    copies = new Map();
    copiesByTemplate.set(event, copies);
  }
  const key = copyKey(rawContent, noAvatar, topicName, flags);
  let copy = copies.get(key);
  if (copy === undefined) {
    copy = { type: "message", message: messageCopy(event, rawContent, noAvatar, topicName), flags };
    copies.set(key, copy);
  }
  return copy;
}

/** What tells two queues' copies apart: the message's formats and the user's flags (flag names hold no spaces). */
function copyKey(rawContent: boolean, noAvatar: boolean, topicName: boolean, flags: readonly string[]): string {
  return `${rawContent ? "r" : "-"}${noAvatar ? "a" : "-"}${topicName ? "t" : "-"}${flags.join(" ")}`;
}

/** The template's message as a queue with these formats receives it. */
function messageCopy(event: MessageEventTemplate, rawContent: boolean, noAvatar: boolean, topicName: boolean): ApiMessage {
  const { variants } = event;
  const message: ApiMessage = { ...event.message };
  if (rawContent) {
    message.content = variants.raw_content;
    message.content_type = "text/x-markdown";
  }
  if (noAvatar) message.avatar_url = null;
  if (topicName) message.subject = variants.empty_topic_display_name;
  return message;
}

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

/** What one queue sees of a message event template (a queue's copy passes unchanged). */
export function messageEventForQueue(
  event: AnyMessageEvent,
  options: { apply_markdown: boolean; client_gravatar: boolean; capabilities: { empty_topic_name: boolean } },
  target: { queueId: string; userId: number },
): MessageEvent {
  if (!("variants" in event)) return event;
  const { variants } = event;
  const message: ApiMessage = { ...event.message };
  if (!options.apply_markdown) {
    message.content = variants.raw_content;
    message.content_type = "text/x-markdown";
  }
  if (options.client_gravatar && variants.gravatar_computable) message.avatar_url = null;
  if (message.type === "stream" && message.subject === "" && !options.capabilities.empty_topic_name) message.subject = variants.empty_topic_display_name;
  const out: MessageEvent = { type: "message", message, flags: variants.user_flags[String(target.userId)] ?? [] };
  if (variants.sender_queue_id === target.queueId && variants.local_id !== null) out.local_message_id = variants.local_id;
  return out;
}

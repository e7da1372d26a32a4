/**
 * `typing` events (someone started or stopped composing a message) and `typing_edit_message`
 * events (someone is editing one of their messages, FL 351). The server keeps no typing state:
 * each POST /typing becomes one event for the conversation's recipients.
 */
import type { ClientCapabilities } from "../queue-options.ts";

/** A user as a typing event names them. */
export type TypingUser = { user_id: number; email: string };

/** Typing in a direct conversation: every participant is listed, the sender included. */
type DirectTypingEvent = { type: "typing"; op: "start" | "stop"; message_type: "direct"; sender: TypingUser; recipients: TypingUser[] };

/**
 * Typing in a channel topic (only clients with stream_typing_notifications get these).
 * `empty_topic_display_name` travels only with the empty topic, for clients without
 * empty_topic_name; the queue adapter removes it.
 */
type StreamTypingEvent = {
  type: "typing";
  op: "start" | "stop";
  message_type: "stream";
  sender: TypingUser;
  stream_id: number;
  topic: string;
  empty_topic_display_name?: string;
};

/** Either form of typing notification. */
export type TypingEvent = DirectTypingEvent | StreamTypingEvent;

/** Where a message being edited lives: a channel topic, or the direct conversation's users. */
type EditRecipient = { type: "channel"; channel_id: number; topic: string } | { type: "direct"; user_ids: number[] };

/** Someone started or stopped editing a message's content. */
export type TypingEditMessageEvent = { type: "typing_edit_message"; op: "start" | "stop"; sender_id: number; message_id: number; recipient: EditRecipient };

/** The event for typing to a direct conversation. */
export function directTypingEvent(op: "start" | "stop", sender: TypingUser, recipients: TypingUser[]): TypingEvent {
  return { type: "typing", op, message_type: "direct", sender, recipients };
}

/** The event for typing in a channel topic; `emptyTopicDisplayName` is what clients without empty_topic_name see for "". */
export function streamTypingEvent(op: "start" | "stop", sender: TypingUser, streamId: number, topic: string, emptyTopicDisplayName: string): TypingEvent {
  const event: StreamTypingEvent = { type: "typing", op, message_type: "stream", sender, stream_id: streamId, topic };
  if (topic === "") event.empty_topic_display_name = emptyTopicDisplayName;
  return event;
}

/** The event for editing a message. */
export function typingEditMessageEvent(op: "start" | "stop", senderId: number, messageId: number, recipient: EditRecipient): TypingEditMessageEvent {
  return { type: "typing_edit_message", op, sender_id: senderId, message_id: messageId, recipient };
}

/**
 * What one queue receives: channel typing only with stream_typing_notifications (FL 58); the
 * empty topic as the realm's display name without empty_topic_name (FL 334).
 */
export function typingEventForQueue(event: TypingEvent, options: { capabilities: Pick<ClientCapabilities, "stream_typing_notifications" | "empty_topic_name"> }): TypingEvent | null {
  if (event.message_type === "direct") return event;
  if (!options.capabilities.stream_typing_notifications) return null;
  const { empty_topic_display_name: display, ...plain } = event;
  if (display !== undefined && !options.capabilities.empty_topic_name) plain.topic = display;
  return plain;
}

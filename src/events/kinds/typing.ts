/**
 * `typing` events: someone started or stopped composing. No action sends them yet; the type is
 * here so the queue adapter for stream_typing_notifications (FL 58) is checked against it.
 */
import type { ClientCapabilities } from "../queue-options.ts";

/** A user as a typing event names them. */
type TypingUser = { user_id: number; email: string };

/** Typing in a direct conversation: every participant is listed. */
type DirectTypingEvent = { type: "typing"; op: "start" | "stop"; message_type: "direct"; sender: TypingUser; recipients: TypingUser[] };

/** Typing in a channel topic (only clients with stream_typing_notifications get these). */
type StreamTypingEvent = { type: "typing"; op: "start" | "stop"; message_type: "stream"; sender: TypingUser; stream_id: number; topic: string };

/** Either form of typing notification. */
export type TypingEvent = DirectTypingEvent | StreamTypingEvent;

/** Channel typing notifications reach only clients with stream_typing_notifications (FL 58). */
export function typingEventForQueue(event: TypingEvent, options: { capabilities: Pick<ClientCapabilities, "stream_typing_notifications"> }): TypingEvent | null {
  return event.message_type === "stream" && !options.capabilities.stream_typing_notifications ? null : event;
}

/** `drafts` and `scheduled_messages` events, sent only to the owner's own queues. */
import type { ApiDraft, ApiScheduledMessage } from "../../present/drafts.ts";

/** Drafts created, edited or deleted. */
export type DraftsEvent =
  | { type: "drafts"; op: "add"; drafts: ApiDraft[] }
  | { type: "drafts"; op: "update"; draft: ApiDraft }
  | { type: "drafts"; op: "remove"; draft_id: number };

/** Scheduled messages created, edited (or failed to send), or deleted (or sent). */
export type ScheduledMessagesEvent =
  | { type: "scheduled_messages"; op: "add"; scheduled_messages: ApiScheduledMessage[] }
  | { type: "scheduled_messages"; op: "update"; scheduled_message: ApiScheduledMessage }
  | { type: "scheduled_messages"; op: "remove"; scheduled_message_id: number };

/** Drafts were created. */
export function draftsAddEvent(drafts: ApiDraft[]): DraftsEvent {
  return { type: "drafts", op: "add", drafts };
}

/** A draft was replaced. */
export function draftUpdateEvent(draft: ApiDraft): DraftsEvent {
  return { type: "drafts", op: "update", draft };
}

/** A draft was deleted. */
export function draftRemoveEvent(draftId: number): DraftsEvent {
  return { type: "drafts", op: "remove", draft_id: draftId };
}

/** Messages were scheduled. */
export function scheduledMessagesAddEvent(messages: ApiScheduledMessage[]): ScheduledMessagesEvent {
  return { type: "scheduled_messages", op: "add", scheduled_messages: messages };
}

/** A scheduled message was edited, or the server failed to send it. */
export function scheduledMessageUpdateEvent(message: ApiScheduledMessage): ScheduledMessagesEvent {
  return { type: "scheduled_messages", op: "update", scheduled_message: message };
}

/** A scheduled message was deleted, or sent. */
export function scheduledMessageRemoveEvent(id: number): ScheduledMessagesEvent {
  return { type: "scheduled_messages", op: "remove", scheduled_message_id: id };
}

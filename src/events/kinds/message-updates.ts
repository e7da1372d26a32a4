/** `update_message` and `delete_message` events: messages edited, moved or deleted. */
import type { ClientCapabilities } from "../queue-options.ts";

/** The fields of an `update_message` event that do not depend on the receiving user. */
export type UpdateMessageBase = {
  type: "update_message";
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
  stream_name?: string;
  stream_id?: number;
  new_stream_id?: number;
  propagate_mode?: "change_one" | "change_later" | "change_all";
  orig_subject?: string;
  subject?: string;
  topic_links?: Array<{ text: string; url: string }>;
  orig_content?: string;
  orig_rendered_content?: string;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
};

/** What a user receives: the base plus their own flags for `message_id` after the edit. */
type UpdateMessageEvent = UpdateMessageBase & { flags: string[] };

/** Where deleted messages were: a channel topic, or a direct conversation. */
type DeletedFrom = { message_type: "stream" | "private"; stream_id?: number; topic?: string };

/** A deletion; the queue layer splits `message_ids` for clients without bulk_message_deletion. */
type DeleteMessageEvent = { type: "delete_message"; message_ids: number[] } & DeletedFrom;

/** What a client without bulk_message_deletion receives: one event per deleted message (FL 13). */
type DeleteOneMessageEvent = { type: "delete_message"; message_id: number } & DeletedFrom;

/** Every event this file declares. */
export type MessageUpdateEvent = UpdateMessageEvent | DeleteMessageEvent | DeleteOneMessageEvent;

/** One user's `update_message` event. */
export function updateMessageEvent(base: UpdateMessageBase, flags: string[]): UpdateMessageEvent {
  return { flags, ...base };
}

/** The `delete_message` event for messages of one conversation (a channel topic or a direct conversation). */
export function deleteMessageEvent(messageIds: number[], where: { streamId: number; topic: string } | null): DeleteMessageEvent {
  const ids = [...messageIds].sort((a, b) => a - b);
  if (where === null) return { type: "delete_message", message_ids: ids, message_type: "private" };
  return { type: "delete_message", message_ids: ids, message_type: "stream", stream_id: where.streamId, topic: where.topic };
}

/** Splits a deletion into singleton events unless the client declared bulk_message_deletion (FL 13). */
export function deleteMessageEventForQueue(
  event: DeleteMessageEvent | DeleteOneMessageEvent,
  options: { capabilities: Pick<ClientCapabilities, "bulk_message_deletion"> },
): DeleteMessageEvent | DeleteOneMessageEvent | DeleteOneMessageEvent[] {
  if (options.capabilities.bulk_message_deletion || !("message_ids" in event)) return event;
  const { message_ids: ids, ...where } = event;
  return ids.map((id) => ({ message_id: id, ...where }));
}

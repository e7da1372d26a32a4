/** `update_message` and `delete_message` events: messages edited, moved or deleted. */

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
export type UpdateMessageEvent = UpdateMessageBase & { flags: string[] };

/** A deletion; the queue layer splits `message_ids` for clients without bulk_message_deletion. */
export type DeleteMessageEvent = {
  type: "delete_message";
  message_ids: number[];
  message_type: "stream" | "private";
  stream_id?: number;
  topic?: string;
};

/** One user's `update_message` event. */
export function updateMessageEvent(base: UpdateMessageBase, flags: string[]): UpdateMessageEvent {
  return { ...base, flags };
}

/** The `delete_message` event for messages of one conversation (a channel topic or a direct conversation). */
export function deleteMessageEvent(messageIds: number[], where: { streamId: number; topic: string } | null): DeleteMessageEvent {
  const ids = [...messageIds].sort((a, b) => a - b);
  if (where === null) return { type: "delete_message", message_ids: ids, message_type: "private" };
  return { type: "delete_message", message_ids: ids, message_type: "stream", stream_id: where.streamId, topic: where.topic };
}

/** Table types of messages, their recipients, per-user flags, reactions, submessages and uploads (listed in schema.ts's Database). Booleans are stored as 0/1 integers. */
import type { Generated } from "kysely";
import type { Flag } from "./realm.ts";

/** Recipient types: a channel, or a set of users in direct messages. */
export const RECIPIENT_TYPE = { stream: 2, direct: 3 } as const;

/** Message recipients: a channel or a direct group (`type`, RECIPIENT_TYPE), by `type_id`. */
export interface RecipientTable {
  id: Generated<number>;
  realm_id: number;
  type: number;
  type_id: number;
}

/** Sets of users in direct messages, keyed by their sorted member ids. */
export interface DirectGroupTable {
  id: Generated<number>;
  realm_id: number;
  member_key: string;
}

/** Members of direct groups. */
export interface DirectGroupMemberTable {
  group_id: number;
  user_id: number;
}

/** Messages, channel and direct. */
export interface MessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  stream_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: number;
  sending_client: string;
  last_edit_time: number | null;
  last_moved_time: number | null;
  edit_history: string | null;
  is_me_message: Flag;
  has_link: Flag;
  has_image: Flag;
  has_attachment: Flag;
  stream_wildcard_mention: Flag;
}

/**
 * Every column of MessageTable, for reads: PostgreSQL's messages also hold `search_tsv` (the
 * search vector, about as long as the content), which no read needs, so `select *` would ship it.
 */
export const MESSAGE_COLUMNS = [
  "id", "realm_id", "sender_id", "recipient_id", "stream_id", "topic", "content", "rendered_content", "date_sent", "sending_client",
  "last_edit_time", "last_moved_time", "edit_history", "is_me_message", "has_link", "has_image", "has_attachment", "stream_wildcard_mention",
] as const satisfies ReadonlyArray<keyof MessageTable>;

/** Message flag bits (Zulip's names); a row exists only where a user's flags differ from the default. */
export const MESSAGE_FLAG = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  has_alert_word: 64,
  historical: 128,
} as const;

/** Users' message flags, where they differ from the default (MESSAGE_FLAG bits). */
export interface UserMessageFlagTable {
  user_id: number;
  message_id: number;
  flags: number;
}

/**
 * Per user: every received message up to `message_id` that is unread holds a flag row, so only
 * later ones can be unread for lack of a row (store/messages/unread-watermarks.ts).
 */
export interface UnreadWatermarkTable {
  user_id: number;
  message_id: number;
}

/** Emoji reactions on messages. */
export interface ReactionTable {
  id: Generated<number>;
  realm_id: number;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** Submessages (widget data) of messages. */
export interface SubmessageTable {
  id: Generated<number>;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

/** Uploaded files. */
export interface AttachmentTable {
  id: Generated<number>;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  size: number;
  content_type: string | null;
  create_time: number;
}

/** Which messages link to which uploads. */
export interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

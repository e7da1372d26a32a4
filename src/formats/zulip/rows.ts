/**
 * The rows of Zulip's export this reader takes, as zod schemas of the fields it reads (other
 * fields pass through untouched: settings are read by name). Each schema is Zulip's model as
 * `manage.py export` writes it (zerver/lib/export.py): foreign keys as bare ids, times as UNIX
 * seconds with a fraction, many-to-many fields as id lists. Fields that newer Zulip versions added
 * or renamed are optional here and read where present.
 */
import { z } from "zod";

const id = z.number().int();
const optionalId = id.nullable().optional().transform((v) => v ?? null);
const time = z.number();
const text = z.string();
const flag = z.boolean();

/** Any row with an id (a table read by field name, such as zerver_realmuserdefault). */
export const anyRow = z.looseObject({ id });
export const realmRow = z.looseObject({ id, string_id: text, name: text, description: text, date_created: time, deactivated: flag });
export const userRow = z.looseObject({
  id,
  email: text,
  delivery_email: text,
  full_name: text,
  role: id,
  is_active: flag,
  is_bot: flag,
  bot_type: optionalId,
  bot_owner: optionalId,
  date_joined: time,
  timezone: text.optional().default(""),
  avatar_source: text,
  avatar_version: id,
  is_billing_admin: flag.optional().default(false),
  email_address_visibility: id,
  recipient: optionalId,
});
/** Upstream's rows say only id, email and recipient; Parley's exports add the bot's date_joined. */
export const crossRealmBotRow = z.looseObject({ id, email: text, recipient_id: optionalId, date_joined: time.optional() });
export const serviceRow = z.looseObject({ id, name: text, user_profile: id, base_url: text, token: text, interface: id });
export const recipientRow = z.looseObject({ id, type: id, type_id: id });
export const streamRow = z.looseObject({
  id,
  name: text,
  description: text,
  rendered_description: text.nullable().optional().transform((v) => v ?? ""),
  date_created: time,
  creator: optionalId,
  deactivated: flag,
  invite_only: flag,
  is_web_public: flag,
  history_public_to_subscribers: flag,
  message_retention_days: id.nullable().optional().transform((v) => v ?? null),
  first_message_id: optionalId,
  recipient: optionalId,
});
export const subscriptionRow = z.looseObject({
  id,
  user_profile: id,
  recipient: id,
  active: flag,
  is_muted: flag.optional().default(false),
  color: text.optional().default("#c2c2c2"),
  pin_to_top: flag.optional().default(false),
  desktop_notifications: flag.nullable().optional().transform((v) => v ?? null),
  audible_notifications: flag.nullable().optional().transform((v) => v ?? null),
  push_notifications: flag.nullable().optional().transform((v) => v ?? null),
  email_notifications: flag.nullable().optional().transform((v) => v ?? null),
  wildcard_mentions_notify: flag.nullable().optional().transform((v) => v ?? null),
});
export const directGroupRow = z.looseObject({ id, recipient: optionalId });
export const defaultStreamRow = z.looseObject({ id, stream: id });
export const userGroupRow = z.looseObject({ id });
export const namedGroupRow = z.looseObject({
  id,
  name: text,
  description: text.optional().default(""),
  is_system_group: flag,
  deactivated: flag.optional().default(false),
  date_created: time.nullable().optional().transform((v) => v ?? null),
  creator: optionalId,
});
export const groupMemberRow = z.looseObject({ id, user_group: id, user_profile: id });
export const subgroupRow = z.looseObject({ id, supergroup: id, subgroup: id });
export const profileFieldRow = z.looseObject({
  id,
  name: text,
  hint: text.optional().default(""),
  field_type: id,
  field_data: text.nullable().optional().transform((v) => v ?? ""),
  order: id,
  display_in_profile_summary: flag.optional().default(false),
  required: flag.optional().default(false),
  editable_by_user: flag.optional().default(true),
});
export const profileValueRow = z.looseObject({ id, user_profile: id, field: id, value: text, rendered_value: text.nullable().optional().transform((v) => v ?? null) });
export const userStatusRow = z.looseObject({
  id,
  user_profile: id,
  status_text: text,
  emoji_name: text,
  emoji_code: text,
  reaction_type: text,
  timestamp: time,
});
export const presenceRow = z.looseObject({ id, user_profile: id, last_active_time: time.nullable(), last_connected_time: time.nullable(), last_update_id: id.optional().default(0) });
export const presenceSequenceRow = z.looseObject({ id, last_update_id: id });
export const alertWordRow = z.looseObject({ id, user_profile: id, word: text });
export const mutedUserRow = z.looseObject({ id, user_profile: id, muted_user: id, date_muted: time });
export const realmEmojiRow = z.looseObject({ id, name: text, file_name: text.nullable(), author: optionalId, deactivated: flag, is_animated: flag.optional().default(false) });
export const linkifierRow = z.looseObject({ id, pattern: text, url_template: text, order: id.optional().default(0) });
export const playgroundRow = z.looseObject({ id, name: text, pygments_language: text, url_template: text });
export const realmDomainRow = z.looseObject({ id, domain: text, allow_subdomains: flag });
export const userTopicRow = z.looseObject({ id, user_profile: id, stream: id, topic_name: text, visibility_policy: id, last_updated: time });
export const scheduledMessageRow = z.looseObject({
  id,
  sender: id,
  recipient: id,
  stream: optionalId,
  subject: text,
  content: text,
  rendered_content: text.nullable().optional().transform((v) => v ?? null),
  sending_client: id,
  scheduled_timestamp: time,
  read_by_sender: flag.optional().default(false),
  has_attachment: flag.optional().default(false),
  delivered: flag,
  delivered_message: optionalId,
  failed: flag.optional().default(false),
  failure_message: text.nullable().optional().transform((v) => v ?? null),
  delivery_type: id.optional().default(1),
  reminder_target_message: optionalId,
  reminder_note: text.nullable().optional().transform((v) => v ?? null),
});
export const savedSnippetRow = z.looseObject({ id, user_profile: id, title: text, content: text, date_created: time });
export const draftRow = z.looseObject({ id, user_profile: id, recipient: optionalId, topic: text, content: text, last_edit_time: time });
export const reactionRow = z.looseObject({ id, message: id, user_profile: id, emoji_name: text, emoji_code: text, reaction_type: text });
export const submessageRow = z.looseObject({ id, message: id, sender: id, msg_type: text, content: text });
export const auditLogRow = z.looseObject({
  id,
  event_type: id,
  event_time: time,
  modified_user: optionalId,
  modified_stream: optionalId,
  event_last_message_id: optionalId,
});
export const clientRow = z.looseObject({ id, name: text });
export const messageRow = z.looseObject({
  id,
  sender: id,
  recipient: id,
  subject: text,
  content: text,
  rendered_content: text.nullable(),
  date_sent: time,
  sending_client: id,
  last_edit_time: time.nullable().optional().transform((v) => v ?? null),
  edit_history: text.nullable().optional().transform((v) => v ?? null),
  has_attachment: flag.optional().default(false),
  has_image: flag.optional().default(false),
  has_link: flag.optional().default(false),
});
export const userMessageRow = z.looseObject({ id, user_profile: id, message: id, flags_mask: id });
export const attachmentRow = z.looseObject({
  id,
  file_name: text,
  path_id: text,
  owner: id,
  create_time: time,
  size: id,
  content_type: text.nullable().optional().transform((v) => v ?? null),
  messages: z.array(id).optional().default([]),
  scheduled_messages: z.array(id).optional().default([]),
});
export const fileRecordRow = z.looseObject({ path: text, user_profile_id: optionalId, size: id.optional(), content_type: text.nullable().optional() });

/** The row type a schema yields. */
export type Row<S extends z.ZodType> = z.output<S>;

/** Table types of the database, shared by both engines. Booleans are stored as 0/1 integers. */
import type { Generated, Insertable, Selectable, Updateable } from "kysely";

/** A boolean column: 0 or 1. */
export type Flag = 0 | 1;

/** Organizations (Zulip's realms). */
export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: Flag;
  /** JSON object of settings that differ from the defaults in permissions/realm-settings.ts. */
  settings: string;
  /** The stable id the push relay knows the organization by (Zulip's Realm.uuid); set on insert. */
  uuid: string | null;
}

/** Users and bots of every realm. */
interface UserTable {
  id: Generated<number>;
  realm_id: number;
  delivery_email: string;
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators (Zulip's values). */
  email_address_visibility: number;
  full_name: string;
  role: number;
  is_active: Flag;
  is_bot: Flag;
  bot_type: number | null;
  bot_owner_id: number | null;
  api_key: string;
  password_hash: string | null;
  date_joined: number;
  timezone: string;
  /** "G" gravatar, "U" uploaded. */
  avatar_source: string;
  avatar_version: number;
  is_billing_admin: Flag;
  /** JSON object of personal settings that differ from the defaults. */
  settings: string;
  /** Zulip's can_create_users: with the administrator role, allows POST /users (granted by the CLI). */
  can_create_users: Generated<Flag>;
  /** The stable id the push relay knows the user by (Zulip's UserProfile.uuid); set on insert. */
  uuid: string | null;
}

/** Outgoing-webhook services of bots. */
interface ServiceTable {
  id: Generated<number>;
  realm_id: number;
  bot_user_id: number;
  base_url: string;
  token: string;
  /** 1 generic, 2 slack-compatible. */
  interface: number;
}

/** Channels; each `*_group_id` holds a group-setting value (permissions/group-setting.ts). */
export interface StreamTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: Flag;
  is_web_public: Flag;
  history_public_to_subscribers: Flag;
  message_retention_days: number | null;
  date_created: number;
  creator_id: number | null;
  is_archived: Flag;
  first_message_id: number | null;
  can_administer_channel_group_id: number;
  can_send_message_group_id: number;
  can_add_subscribers_group_id: number;
  can_remove_subscribers_group_id: number;
  can_subscribe_group_id: number;
  can_delete_any_message_group_id: number;
  can_delete_own_message_group_id: number;
  can_move_messages_out_of_channel_group_id: number;
  can_move_messages_within_channel_group_id: number;
  can_resolve_topics_group_id: number;
  /** The channel's folder (FL 389; migration 0016), or null. */
  folder_id: Generated<number | null>;
}

/** Users' subscriptions to channels, with their personal settings (null: the user's default). */
export interface SubscriptionTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  stream_id: number;
  active: Flag;
  is_muted: Flag;
  color: string;
  pin_to_top: Flag;
  desktop_notifications: Flag | null;
  audible_notifications: Flag | null;
  push_notifications: Flag | null;
  email_notifications: Flag | null;
  wildcard_mentions_notify: Flag | null;
  /** The user's is_active, copied here (as Zulip's Subscription.is_user_active) so a channel's
   * receivers come from this table alone; written with users.is_active by setUsersActive. */
  is_user_active: Generated<Flag>;
}

/** User groups: named, system, and the anonymous ones behind group-setting values. */
export interface UserGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** Null for the anonymous groups that hold `{direct_members, direct_subgroups}` setting values. */
  name: string | null;
  description: string;
  is_system_group: Flag;
  deactivated: Flag;
  date_created: number | null;
  creator_id: number | null;
  can_add_members_group_id: number | null;
  can_join_group_id: number | null;
  can_leave_group_id: number | null;
  can_manage_group_id: number | null;
  can_mention_group_id: number | null;
  can_remove_members_group_id: number | null;
}

/** Direct members of user groups. */
interface UserGroupMemberTable {
  group_id: number;
  user_id: number;
}

/** Direct subgroups of user groups. */
interface UserGroupSubgroupTable {
  supergroup_id: number;
  subgroup_id: number;
}

/** A realm's custom profile fields. */
export interface CustomProfileFieldTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  order: number;
  display_in_profile_summary: Flag;
  required: Flag;
  editable_by_user: Flag;
}

/** Users' values for custom profile fields. */
interface CustomProfileValueTable {
  realm_id: number;
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

/** Recipient types: a channel, or a set of users in direct messages. */
export const RECIPIENT_TYPE = { stream: 2, direct: 3 } as const;

/** Message recipients: a channel or a direct group (`type`, RECIPIENT_TYPE), by `type_id`. */
interface RecipientTable {
  id: Generated<number>;
  realm_id: number;
  type: number;
  type_id: number;
}

/** Sets of users in direct messages, keyed by their sorted member ids. */
interface DirectGroupTable {
  id: Generated<number>;
  realm_id: number;
  member_key: string;
}

/** Members of direct groups. */
interface DirectGroupMemberTable {
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
interface UserMessageFlagTable {
  user_id: number;
  message_id: number;
  flags: number;
}

/**
 * Per user: every received message up to `message_id` that is unread holds a flag row, so only
 * later ones can be unread for lack of a row (store/unread-watermarks.ts).
 */
interface UnreadWatermarkTable {
  user_id: number;
  message_id: number;
}

/** Spans of a channel's message ids a user received while subscribed (open-ended while subscribed). */
interface SubscriptionPeriodTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  stream_id: number;
  first_message_id: number;
  last_message_id: number | null;
}

/** Topic visibility policies: 0 inherit, 1 muted, 2 unmuted, 3 followed. */
export interface UserTopicTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  stream_id: number;
  topic: string;
  visibility_policy: number;
  last_updated: number;
}

/** Emoji reactions on messages. */
interface ReactionTable {
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

/** Users' statuses: text and emoji. */
export interface UserStatusTable {
  user_id: number;
  realm_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  timestamp: number;
}

/** A realm's code playgrounds. */
export interface RealmPlaygroundTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** A realm's linkifiers, applied in `order`. */
export interface LinkifierTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: number;
}

/** A realm's custom emoji. */
export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  file_name: string;
  author_id: number | null;
  deactivated: Flag;
  is_animated: Flag;
}

/** Users' saved snippets. */
export interface SavedSnippetTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
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
interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

/** The whole database, as Kysely sees it. */
export interface Database {
  realms: RealmTable;
  users: UserTable;
  services: ServiceTable;
  streams: StreamTable;
  subscriptions: SubscriptionTable;
  user_groups: UserGroupTable;
  user_group_members: UserGroupMemberTable;
  user_group_subgroups: UserGroupSubgroupTable;
  custom_profile_fields: CustomProfileFieldTable;
  custom_profile_values: CustomProfileValueTable;
  recipients: RecipientTable;
  direct_groups: DirectGroupTable;
  direct_group_members: DirectGroupMemberTable;
  messages: MessageTable;
  user_message_flags: UserMessageFlagTable;
  subscription_periods: SubscriptionPeriodTable;
  unread_watermarks: UnreadWatermarkTable;
  user_topics: UserTopicTable;
  reactions: ReactionTable;
  submessages: SubmessageTable;
  user_status: UserStatusTable;
  realm_playgrounds: RealmPlaygroundTable;
  linkifiers: LinkifierTable;
  realm_emoji: RealmEmojiTable;
  saved_snippets: SavedSnippetTable;
  attachments: AttachmentTable;
  attachment_messages: AttachmentMessageTable;
  drafts: import("./schema-drafts.ts").DraftTable;
  scheduled_messages: import("./schema-drafts.ts").ScheduledMessageTable;
  user_presence: import("./schema-presence.ts").UserPresenceTable;
  presence_sequence: import("./schema-presence.ts").PresenceSequenceTable;
  alert_words: import("./schema-alert-words.ts").AlertWordTable;
  muted_users: import("./schema-alert-words.ts").MutedUserTable;
  realm_user_defaults: import("./schema-settings.ts").RealmUserDefaultsTable;
  default_streams: import("./schema-channels.ts").DefaultStreamTable;
  stream_email_addresses: import("./schema-channels.ts").StreamEmailAddressTable;
  navigation_views: import("./schema-fl420.ts").NavigationViewTable;
  channel_folders: import("./schema-fl420.ts").ChannelFolderTable;
  outgoing_webhook_jobs: import("./schema-webhooks.ts").OutgoingWebhookJobTable;
  push_device_tokens: import("./schema-push.ts").PushDeviceTokenTable;
  push_devices: import("./schema-push.ts").PushDeviceTable;
  push_relay_jobs: import("./schema-push.ts").PushRelayJobTable;
  push_active_notifications: import("./schema-push.ts").PushActiveNotificationTable;
  invites: import("./schema-invites.ts").InviteTable;
  email_jobs: import("./schema-invites.ts").EmailJobTable;
  realm_domains: import("./schema-invites.ts").RealmDomainTable;
  sessions: import("./schema-sessions.ts").SessionTable;
}

/** A stored message. */
export type MessageRow = Selectable<MessageTable>;
/** A message to insert. */
export type NewMessage = Insertable<MessageTable>;
/** A stored reaction. */
export type ReactionRow = Selectable<ReactionTable>;

/** A stored realm. */
export type RealmRow = Selectable<RealmTable>;
/** A stored user or bot. */
export type UserRow = Selectable<UserTable>;
/** A user to insert. */
export type NewUser = Insertable<UserTable>;
/** Columns of a user to change. */
export type UserUpdate = Updateable<UserTable>;
/** A stored channel. */
export type StreamRow = Selectable<StreamTable>;
/** A channel to insert. */
export type NewStream = Insertable<StreamTable>;
/** A stored subscription. */
export type SubscriptionRow = Selectable<SubscriptionTable>;
/** A stored user group. */
export type UserGroupRow = Selectable<UserGroupTable>;
/** A stored bot service. */
export type ServiceRow = Selectable<ServiceTable>;
/** A stored custom profile field. */
export type CustomProfileFieldRow = Selectable<CustomProfileFieldTable>;

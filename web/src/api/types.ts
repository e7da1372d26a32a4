/**
 * The wire shapes the web app reads: the parts of the server's answers and events it uses.
 * `web/server-types.check.ts` checks (in the root type check) that the server's own presenter
 * and event types fit these, so the client cannot drift from what the server sends.
 */
import type { ComposeToolsEvent, ComposeToolsSnapshot } from "./compose-types.ts";
import type { ProfileField, ProfileValue, ProfileValueChange, UserStatus } from "./people.ts";

/** Zulip's Message object (the fields the app reads), with the reader's flags. */
export type Message = {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  content: string;
  timestamp: number;
  subject: string;
  type: "stream" | "private";
  stream_id?: number;
  display_recipient: string | Array<{ id: number; email: string; full_name: string }>;
  avatar_url: string | null;
  is_me_message: boolean;
  reactions: Reaction[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  flags: readonly string[];
};

/** One user's reaction to a message. */
export type Reaction = { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number };

/** A subscription (the channel plus the user's settings), as far as the app reads it. */
export type Subscription = {
  stream_id: number;
  name: string;
  description: string;
  color: string;
  invite_only: boolean;
  is_muted: boolean;
  pin_to_top: boolean;
  is_archived: boolean;
  /** The user's notification overrides for the channel (null: as their setting for channels). */
  desktop_notifications?: boolean | null;
  audible_notifications?: boolean | null;
  push_notifications?: boolean | null;
  email_notifications?: boolean | null;
  wildcard_mentions_notify?: boolean | null;
} & ChannelPrivacy;

/** A channel the user can see, subscribed or not (the register snapshot's `streams`, `stream` events). */
export type Channel = { stream_id: number; name: string; description: string; invite_only: boolean; is_archived: boolean } & ChannelPrivacy;

/** A channel's history and web-public flags and who administers it (the channel settings dialog's). */
export type ChannelPrivacy = { history_public_to_subscribers?: boolean; is_web_public?: boolean; can_administer_channel_group?: GroupSettingValue; subscriber_count?: number };

/** A user as realm_users lists them. */
export type User = {
  user_id: number;
  email: string;
  full_name: string;
  is_bot: boolean;
  avatar_url?: string | null;
  is_active?: boolean;
  /** 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest. */
  role?: number;
  /** An IANA time zone ("" when unknown), the date joined (ISO), custom profile field values by field id. */
  timezone?: string;
  date_joined?: string;
  profile_data?: Record<string, ProfileValue>;
};

/** The signed-in user as GET /json/session names them. */
export type SessionUser = { user_id: number; email: string; full_name: string };

/** GET /json/session. */
export type SessionResponse = { csrf_token: string; user: SessionUser | null; /** Whether the server sends email (SMTP_URL). */ email_sending?: boolean };

/** unread_msgs of the register snapshot. */
export type UnreadMsgs = {
  pms: Array<{ other_user_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  count: number;
  old_unreads_missing: boolean;
};

/** The user settings the app reads. */
export type UserSettings = {
  enter_sends: boolean;
  color_scheme: number;
  twenty_four_hour_time: boolean;
  /** The view an empty URL hash opens: "inbox" (the default), "recent_topics" or "all_messages". */
  web_home_view?: string;
  // Notification settings (the settings screen's; absent until the snapshot arrives).
  enable_desktop_notifications?: boolean;
  enable_sounds?: boolean;
  enable_offline_email_notifications?: boolean;
  enable_offline_push_notifications?: boolean;
  enable_login_emails?: boolean;
  enable_stream_desktop_notifications?: boolean;
  wildcard_mentions_notify?: boolean;
  /** Whether drafts are saved on the server (Zulip's default: on). */
  enable_drafts_synchronization?: boolean;
  enable_stream_audible_notifications?: boolean;
  enable_stream_push_notifications?: boolean;
  enable_stream_email_notifications?: boolean;
  enable_followed_topic_desktop_notifications?: boolean;
  enable_followed_topic_audible_notifications?: boolean;
  enable_followed_topic_wildcard_mentions_notify?: boolean;
  notification_sound?: string;
  pm_content_in_desktop_notifications?: boolean;
  /** Off: "invisible mode", others see the user offline. */
  presence_enabled?: boolean;
};

/** POST /register: the queue and the snapshot of the keys the app asks for. */
export type RegisterResponse = ComposeToolsSnapshot & {
  queue_id: string;
  last_event_id: number;
  zulip_feature_level: number;
  max_message_id: number;
  realm_name: string;
  realm_users: User[];
  subscriptions: Subscription[];
  unread_msgs: UnreadMsgs;
  recent_private_conversations: Array<{ max_message_id: number; user_ids: number[] }>;
  starred_messages: number[];
  user_settings: UserSettings;
  user_id: number;
  can_invite_others_to_realm: boolean;
  /** Every channel the user can see (asked for with the `stream` event type). */
  streams?: Channel[];
  /** Whether the user may create public and private channels. */
  can_create_public_streams?: boolean;
  can_create_private_streams?: boolean;
  /** The user's topic settings (muted, followed: visibility_policy), with the `user_topic` event type. */
  user_topics?: UserTopic[];
  /** The users the user muted, with the `muted_users` event type. */
  muted_users?: MutedUser[];
  /** Statuses by user id, and the organization's custom profile fields (with those event types). */
  user_status?: Record<string, UserStatus>;
  custom_profile_fields?: ProfileField[];
  /** The organization's other settings (realm_description, the realm_can_*_group permissions, ...). */
  [key: `realm_${string}`]: unknown;
  /** Presence (slim: keyed by user id) and the server's clock and timing rules for it and typing. */
  presences?: Record<string, PresenceTimes>;
  server_timestamp?: number;
  server_presence_ping_interval_seconds?: number;
  server_presence_offline_threshold_seconds?: number;
  server_typing_started_expiry_period_milliseconds?: number;
  server_typing_stopped_wait_period_milliseconds?: number;
  server_typing_started_wait_period_milliseconds?: number;
};

/** A muted user as the snapshot's `muted_users` and the `muted_users` event list them. */
export type MutedUser = { id: number; timestamp: number };

/** A user's setting for a topic: visibility_policy 1 muted, 2 unmuted, 3 followed, 0 none. */
export type UserTopic = { stream_id: number; topic_name: string; visibility_policy: number };

/** A user's presence in the modern form: when they were last active and last connected (UNIX seconds). */
export type PresenceTimes = { active_timestamp: number; idle_timestamp: number };

/** POST /users/me/presence (slim). */
export type PresenceResponse = { presences?: Record<string, PresenceTimes>; server_timestamp?: number; presence_last_update_id?: number };

/** A user named in a typing event. */
export type TypingUser = { user_id: number; email: string };

/** GET /messages. */
export type MessagesResponse = {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
  found_anchor: boolean;
};

/** GET /users/me/{stream_id}/topics. */
export type TopicsResponse = { topics: Array<{ name: string; max_id: number }> };

/** A group-setting value: a named group's id, or an anonymous group (FL 283). */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** A user group as GET /user_groups lists it (the fields the app reads). */
export type UserGroup = { id: number; name: string; description: string; members: number[]; direct_subgroup_ids: number[]; is_system_group: boolean; deactivated: boolean } & Partial<
  Record<GroupPermission, GroupSettingValue>
> & { creator_id?: number | null };

/** A user group's permission settings (who may manage, join, leave it, add and remove its members, mention it). */
export type GroupPermission = "can_manage_group" | "can_join_group" | "can_leave_group" | "can_add_members_group" | "can_remove_members_group" | "can_mention_group";

/** GET /user_groups. */
export type UserGroupsResponse = { user_groups: UserGroup[] };

/** GET /realm/emoji: the organization's custom emoji by id. */
export type RealmEmojiResponse = { emoji: Record<string, { id: string; name: string; source_url: string; deactivated: boolean; author_id?: number | null }> };

/** The server's unicode emoji names (`server_emoji_data_url`, FL 140): canonical name first. */
export type EmojiDataResponse = { code_to_names: Record<string, string[]> };

/** GET /messages/{id}: one message and its Markdown source. */
export type SingleMessageResponse = { message: Message; raw_content: string };

/** POST /user_uploads. */
export type UploadResponse = { url: string; filename?: string };

import type { RealmExport } from "./exports.ts";

/** The events the app handles; others are ignored. */
export type ServerEvent =
  | { id: number; type: "heartbeat" }
  | { id: number; type: "restart" }
  | { id: number; type: "message"; message: Omit<Message, "flags">; flags: readonly string[]; local_message_id?: string }
  | { id: number; type: "update_message_flags"; op: "add" | "remove"; flag: string; messages: number[]; all: boolean; message_details?: Record<string, UnreadDetail> }
  | { id: number; type: "update_message"; message_id: number; message_ids: number[]; rendered_content?: string; content?: string; edit_timestamp: number; rendering_only: boolean; subject?: string; new_stream_id?: number; stream_id?: number }
  | { id: number; type: "delete_message"; message_ids?: number[]; message_id?: number }
  | { id: number; type: "reaction"; op: "add" | "remove"; message_id: number; user_id: number; emoji_name: string; emoji_code: string; reaction_type: string }
  | { id: number; type: "subscription"; op: "add"; subscriptions: Subscription[] }
  | { id: number; type: "subscription"; op: "remove"; subscriptions: Array<{ stream_id: number }> }
  | { id: number; type: "subscription"; op: "update"; stream_id: number; property: string; value: unknown }
  | { id: number; type: "realm_user"; op: "add"; person: User }
  | { id: number; type: "realm_user"; op: "update"; person: Partial<User> & { user_id: number; custom_profile_field?: ProfileValueChange } }
  | { id: number; type: "user_settings"; op: "update"; property: string; value: unknown }
  | { id: number; type: "realm"; op: "update"; property: string; value: unknown }
  | { id: number; type: "realm"; op: "update_dict"; property: string; data: Record<string, unknown> }
  | { id: number; type: "stream"; op: "delete"; streams: Array<{ stream_id: number }> }
  | { id: number; type: "stream"; op: "create"; streams: Channel[] }
  | ({ id: number; type: "user_topic" } & UserTopic)
  | { id: number; type: "muted_users"; muted_users: MutedUser[] }
  | { id: number; type: "default_streams"; default_streams: number[] }
  | { id: number; type: "stream"; op: "update"; stream_id: number; property: string; value: unknown }
  | { id: number; type: "realm_user"; op: "remove"; person: { user_id: number } }
  | { id: number; type: "typing"; op: "start" | "stop"; message_type: "direct"; sender: TypingUser; recipients: TypingUser[] }
  | { id: number; type: "typing"; op: "start" | "stop"; message_type: "stream"; sender: TypingUser; stream_id: number; topic: string }
  | { id: number; type: "presence"; presences: Record<string, PresenceTimes> }
  | ComposeToolsEvent
  | ({ id: number; type: "user_status"; user_id: number } & UserStatus)
  | { id: number; type: "custom_profile_fields"; fields: ProfileField[] }
  | { id: number; type: "realm_export"; exports: RealmExport[] };

/** What a client needs to put a message marked unread back (FL 121). */
export type UnreadDetail =
  | { type: "private"; user_ids: number[]; mentioned?: true }
  | { type: "stream"; stream_id: number; topic: string; mentioned?: true };

/** GET /events. */
export type EventsResponse = { events: ServerEvent[]; queue_id?: string };

/** Table types of channels, subscriptions, topics and channel extras (listed in schema.ts's Database). */
import type { Flag } from "./realm.ts";
import type { Generated } from "kysely";

/** A realm's default channels (Zulip's DefaultStream): new users are subscribed to them. */
export interface DefaultStreamTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
}

/** Tokens of channel email addresses (Zulip's ChannelEmailAddress), per channel, requester and sender. */
export interface StreamEmailAddressTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
  creator_id: number;
  /** The user posting what arrives at the address; 0 for the email gateway itself. */
  sender_id: number;
  email_token: string;
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

/** Spans of a channel's message ids a user received while subscribed (open-ended while subscribed). */
export interface SubscriptionPeriodTable {
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

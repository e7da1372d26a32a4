/**
 * Channel and subscription rows in their API shapes, shared by REST responses, the register
 * snapshot and events: zulip-openapi.yaml's BasicChannel and Subscriptions fields plus the
 * channel fields SPEC.md's feature level adds after that file (FL 325-407).
 */
import type { StreamRow, SubscriptionRow, UserRow } from "../store/schema/database.ts";
import { userSetting } from "../model/user-settings.ts";
import type { GroupSettingValue } from "../permissions/group-setting.ts";
import { SYSTEM_GROUP } from "../model/roles.ts";
import type { GroupIndex } from "../store/groups/group-index.ts";
import type { StreamLookups } from "../store/lookups/stream-lookups.ts";
import { renderMessage } from "../markdown/render.ts";
import { groupSettingValue } from "./user-groups.ts";

/** A channel as BasicChannel. */
export type ApiStream = {
  stream_id: number;
  name: string;
  is_archived: boolean;
  description: string;
  date_created: number;
  creator_id: number | null;
  invite_only: boolean;
  rendered_description: string;
  is_web_public: boolean;
  stream_post_policy: number;
  message_retention_days: number | null;
  history_public_to_subscribers: boolean;
  first_message_id: number | null;
  is_announcement_only: boolean;
  can_remove_subscribers_group: GroupSettingValue;
  stream_weekly_traffic: number | null;
} & Record<(typeof NEWER_GROUP_SETTINGS)[number], GroupSettingValue> & {
  /** FL 394. */
  subscriber_count: number;
  /** FL 323: no activity tracking yet, so every channel counts as recently active. */
  is_recently_active: boolean;
  /** FL 392: channels follow the realm's topics policy. */
  topics_policy: string;
  /** FL 389: channel folders do not exist yet. */
  folder_id: number | null;
};

/** Channel permission settings added after the OpenAPI copy (FL 325-407), with their columns. */
const NEWER_GROUP_SETTINGS = [
  "can_administer_channel_group",
  "can_send_message_group",
  "can_add_subscribers_group",
  "can_subscribe_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_resolve_topics_group",
] as const;

/** A subscription as the Subscriptions schema: the channel plus the user's personal settings. */
export type ApiSubscription = ApiStream & {
  color: string;
  is_muted: boolean;
  in_home_view: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  subscribers?: number[];
  partial_subscribers?: number[];
};

/** Legacy stream_post_policy values (FL 1), derived from can_send_message_group's system group. */
const POST_POLICY_BY_GROUP: Record<string, number> = {
  [SYSTEM_GROUP.everyone]: 1,
  [SYSTEM_GROUP.administrators]: 2,
  [SYSTEM_GROUP.fullMembers]: 3,
  [SYSTEM_GROUP.moderators]: 4,
};
const POST_POLICY_ADMINS = 2;

/** The name of a system group in the index ("" for any other group). */
function systemGroupName(index: GroupIndex, groupId: number): string {
  const group = index.groups.get(groupId);
  return group?.is_system_group === 1 ? (group.name ?? "") : "";
}

/** Presents channels of one realm, with what store/lookups/stream-lookups.ts loaded for them. */
export function presentStreams(streams: readonly StreamRow[], lookups: StreamLookups): ApiStream[] {
  const groups = lookups.settingGroups;
  const out: ApiStream[] = [];
  for (const stream of streams) {
    const policy = POST_POLICY_BY_GROUP[systemGroupName(groups, stream.can_send_message_group_id)] ?? 1;
    out.push({
      stream_id: stream.id,
      name: stream.name,
      is_archived: stream.is_archived === 1,
      description: stream.description,
      date_created: stream.date_created,
      creator_id: stream.creator_id,
      invite_only: stream.invite_only === 1,
      rendered_description: stream.rendered_description,
      is_web_public: stream.is_web_public === 1,
      stream_post_policy: policy,
      message_retention_days: stream.message_retention_days,
      history_public_to_subscribers: stream.history_public_to_subscribers === 1,
      first_message_id: stream.first_message_id,
      is_announcement_only: policy === POST_POLICY_ADMINS,
      can_remove_subscribers_group: groupSettingValue(groups, stream.can_remove_subscribers_group_id),
      // Traffic is not measured yet; null is the documented "no estimate".
      stream_weekly_traffic: null,
      ...newerGroupSettings(groups, stream),
      subscriber_count: lookups.subscriberCounts.get(stream.id) ?? 0,
      is_recently_active: true,
      topics_policy: "inherit",
      folder_id: stream.folder_id ?? null,
    });
  }
  return out;
}

function newerGroupSettings(groups: GroupIndex, stream: StreamRow): Record<(typeof NEWER_GROUP_SETTINGS)[number], GroupSettingValue> {
  const entries = NEWER_GROUP_SETTINGS.map((name) => [name, groupSettingValue(groups, stream[`${name}_id`])] as const);
  return Object.fromEntries(entries) as Record<(typeof NEWER_GROUP_SETTINGS)[number], GroupSettingValue>;
}

/** Presents one channel. */
export function presentStream(stream: StreamRow, lookups: StreamLookups): ApiStream {
  return presentStreams([stream], lookups)[0];
}

/** Nullable 0/1 notification settings as booleans. */
function flag(value: number | null): boolean | null {
  return value === null ? null : value === 1;
}

/** A subscription row joined with its presented channel. */
export function presentSubscription(stream: ApiStream, sub: SubscriptionRow): ApiSubscription {
  return {
    ...stream,
    color: sub.color,
    is_muted: sub.is_muted === 1,
    in_home_view: sub.is_muted !== 1,
    pin_to_top: sub.pin_to_top === 1,
    desktop_notifications: flag(sub.desktop_notifications),
    audible_notifications: flag(sub.audible_notifications),
    push_notifications: flag(sub.push_notifications),
    email_notifications: flag(sub.email_notifications),
    wildcard_mentions_notify: flag(sub.wildcard_mentions_notify),
  };
}

/** The per-channel notification settings whose null means "as the user's setting for channels". */
const INHERITED_NOTIFICATION_SETTINGS = {
  desktop_notifications: "enable_stream_desktop_notifications",
  audible_notifications: "enable_stream_audible_notifications",
  push_notifications: "enable_stream_push_notifications",
  email_notifications: "enable_stream_email_notifications",
} as const;

/**
 * A subscription as a client without the `notification_settings_null` capability reads it: a
 * null notification setting replaced by the user's own setting for channels, since such clients
 * cannot read null (upstream's handle_stream_notifications_compatibility, which leaves
 * wildcard_mentions_notify as it is).
 */
export function withInheritedNotificationSettings(sub: ApiSubscription, user: UserRow): ApiSubscription {
  const out = { ...sub };
  for (const name of Object.keys(INHERITED_NOTIFICATION_SETTINGS) as Array<keyof typeof INHERITED_NOTIFICATION_SETTINGS>) {
    if (out[name] === null) out[name] = userSetting(user, INHERITED_NOTIFICATION_SETTINGS[name]) === true;
  }
  return out;
}

/** The description as HTML, rendered with the message renderer as Zulip does. */
export function renderStreamDescription(description: string, realmUrl: string): string {
  return description === "" ? "" : renderMessage(description, { realmUrl }).html;
}

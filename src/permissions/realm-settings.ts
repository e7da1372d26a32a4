/**
 * Realm (organization) settings with Zulip's defaults. The realms.settings column keeps only
 * values set explicitly; group settings are stored as group ids.
 */
import type { RealmRow } from "../store/schema/database.ts";
import { SYSTEM_GROUP, type SystemGroupName } from "../model/roles.ts";

/** Realm permission settings that hold a group-setting value, with their default system group. */
export const REALM_GROUP_SETTING_DEFAULTS = {
  can_access_all_users_group: SYSTEM_GROUP.everyone,
  can_add_custom_emoji_group: SYSTEM_GROUP.members,
  can_add_subscribers_group: SYSTEM_GROUP.members,
  can_create_bots_group: SYSTEM_GROUP.members,
  can_create_groups: SYSTEM_GROUP.members,
  can_create_private_channel_group: SYSTEM_GROUP.members,
  can_create_public_channel_group: SYSTEM_GROUP.members,
  can_create_web_public_channel_group: SYSTEM_GROUP.owners,
  can_create_write_only_bots_group: SYSTEM_GROUP.members,
  can_delete_any_message_group: SYSTEM_GROUP.administrators,
  can_delete_own_message_group: SYSTEM_GROUP.everyone,
  can_invite_users_group: SYSTEM_GROUP.members,
  can_manage_all_groups: SYSTEM_GROUP.owners,
  can_manage_billing_group: SYSTEM_GROUP.administrators,
  can_mention_many_users_group: SYSTEM_GROUP.administrators,
  can_move_messages_between_channels_group: SYSTEM_GROUP.members,
  can_move_messages_between_topics_group: SYSTEM_GROUP.everyone,
  can_resolve_topics_group: SYSTEM_GROUP.everyone,
  can_set_delete_message_policy_group: SYSTEM_GROUP.moderators,
  can_set_topics_policy_group: SYSTEM_GROUP.moderators,
  can_summarize_topics_group: SYSTEM_GROUP.everyone,
  create_multiuse_invite_group: SYSTEM_GROUP.administrators,
  direct_message_initiator_group: SYSTEM_GROUP.everyone,
  direct_message_permission_group: SYSTEM_GROUP.everyone,
} as const satisfies Record<string, SystemGroupName>;

/**
 * Which values each realm permission setting may take (Zulip's GroupPermissionSetting):
 * role:internet never; role:nobody and role:everyone only where allowed; some only a system
 * group, and then only the listed ones.
 */
type RealmGroupSettingRule = { allowNobody: boolean; allowEveryone: boolean; systemGroups?: readonly SystemGroupName[] };

const OPEN: RealmGroupSettingRule = { allowNobody: true, allowEveryone: true };
const NO_EVERYONE: RealmGroupSettingRule = { allowNobody: true, allowEveryone: false };
const SOMEONE: RealmGroupSettingRule = { allowNobody: false, allowEveryone: false };

/** The rule of each realm permission setting. */
export const REALM_GROUP_SETTING_RULES: Readonly<Record<keyof typeof REALM_GROUP_SETTING_DEFAULTS, RealmGroupSettingRule>> = {
  can_access_all_users_group: { allowNobody: false, allowEveryone: true, systemGroups: [SYSTEM_GROUP.everyone, SYSTEM_GROUP.members] },
  can_add_custom_emoji_group: NO_EVERYONE,
  can_add_subscribers_group: NO_EVERYONE,
  can_create_bots_group: NO_EVERYONE,
  can_create_groups: NO_EVERYONE,
  can_create_private_channel_group: NO_EVERYONE,
  can_create_public_channel_group: NO_EVERYONE,
  can_create_web_public_channel_group: {
    allowNobody: true,
    allowEveryone: false,
    systemGroups: [SYSTEM_GROUP.moderators, SYSTEM_GROUP.administrators, SYSTEM_GROUP.owners, SYSTEM_GROUP.nobody],
  },
  can_create_write_only_bots_group: NO_EVERYONE,
  can_delete_any_message_group: NO_EVERYONE,
  can_delete_own_message_group: OPEN,
  can_invite_users_group: NO_EVERYONE,
  can_manage_all_groups: SOMEONE,
  can_manage_billing_group: SOMEONE,
  can_mention_many_users_group: OPEN,
  can_move_messages_between_channels_group: NO_EVERYONE,
  can_move_messages_between_topics_group: OPEN,
  can_resolve_topics_group: OPEN,
  can_set_delete_message_policy_group: NO_EVERYONE,
  can_set_topics_policy_group: OPEN,
  can_summarize_topics_group: OPEN,
  create_multiuse_invite_group: NO_EVERYONE,
  direct_message_initiator_group: OPEN,
  direct_message_permission_group: OPEN,
};

/** The name of one of the realm's group-valued permission settings. */
export type RealmGroupSetting = keyof typeof REALM_GROUP_SETTING_DEFAULTS;

/** The names of the realm permission settings, in declaration order. */
export const REALM_GROUP_SETTINGS = Object.keys(REALM_GROUP_SETTING_DEFAULTS) as RealmGroupSetting[];

/** Scalar realm settings and their defaults (Zulip's values). */
export const REALM_SCALAR_DEFAULTS = {
  max_message_length: 10000,
  max_topic_length: 60,
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  realm_empty_topic_display_name: "general chat",
  /** -1: no moderation request channel configured. */
  moderation_request_channel_id: -1,
  message_content_edit_limit_seconds: 600 as number | null,
  message_content_delete_limit_seconds: null as number | null,
  move_messages_within_stream_limit_seconds: 604800 as number | null,
  move_messages_between_streams_limit_seconds: 604800 as number | null,
  allow_message_editing: true,
  allow_edit_history: true,
  message_edit_history_visibility_policy: "all",
  mandatory_topics: false,
  topics_policy: "allow_empty_topic",
  email_address_visibility: 1,
  waiting_period_threshold: 0,
  enable_spectator_access: false,
  invite_required: true,
  emails_restricted_to_domains: false,
  default_language: "en",
  digest_emails_enabled: false,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  send_welcome_emails: true,
  message_retention_days: -1,
  wildcard_mention_threshold: 15,
  many_subscribers_threshold: 15,
  // Shown in the POST /register snapshot as realm_<name>, with Zulip's defaults.
  digest_weekday: 1 as number,
  disallow_disposable_email_addresses: true,
  email_changes_disabled: false,
  name_changes_disabled: false,
  avatar_changes_disabled: false,
  require_unique_names: false,
  message_content_allowed_in_email_notifications: true,
  want_advertise_in_communities_directory: false,
  /** 1: Jitsi Meet. */
  video_chat_provider: 1 as number,
  jitsi_server_url: null as string | null,
  /** Giphy's "G" rating. */
  giphy_rating: 2 as number,
  default_code_block_language: "",
  enable_read_receipts: false,
  presence_disabled: false,
  enable_guest_user_indicator: true,
  /** 0: unspecified organization type. */
  org_type: 0 as number,
  /** 1: self-hosted, no plan limits. */
  plan_type: 1 as number,
  /** -1: no announcement channel. */
  new_stream_announcements_stream_id: -1 as number,
  signup_announcements_stream_id: -1 as number,
  zulip_update_announcements_stream_id: -1 as number,
  /** FL 416: what the Welcome Bot adds for each new user ("": nothing). */
  welcome_message_custom_text: "",
} as const;

/** Zulip's MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH: the realm's, an invitation's, or a test's custom welcome text. */
export const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

type Widened<T> = T extends string ? string : T extends boolean ? boolean : T extends number ? number : T;
type RealmScalarSettings = { -readonly [K in keyof typeof REALM_SCALAR_DEFAULTS]: Widened<(typeof REALM_SCALAR_DEFAULTS)[K]> };

/** The realm's settings: stored values over defaults. Group settings are group ids. */
export type RealmSettings = RealmScalarSettings & Record<RealmGroupSetting, number>;

/** Settings already merged, by the stored JSON text (a realm row is read afresh on each request). */
const merged = new Map<string, Readonly<RealmSettings>>();
const MAX_CACHED = 256;

/** Reads a realm's effective settings (frozen: copy before changing). Group settings must have been stored at creation. */
export function realmSettings(realm: RealmRow): Readonly<RealmSettings> {
  const cached = merged.get(realm.settings);
  if (cached) return cached;
  const stored = JSON.parse(realm.settings) as Partial<RealmSettings>;
  const settings = Object.freeze({ ...REALM_SCALAR_DEFAULTS, ...stored } as RealmSettings);
  for (const key of REALM_GROUP_SETTINGS) {
    if (typeof settings[key] !== "number") throw new Error(`realm ${realm.id} lacks group setting ${key}`);
  }
  if (merged.size >= MAX_CACHED) merged.clear();
  merged.set(realm.settings, settings);
  return settings;
}

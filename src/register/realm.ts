/**
 * The register snapshot's organization part (`realm` event type): the realm's settings as
 * `realm_*` keys, its permission settings as group-setting values, and the server facts clients
 * read alongside them (limits, URLs, intervals).
 */
import type { SnapshotCtx } from "./provider.ts";
import { realmSettings, REALM_GROUP_SETTINGS, type RealmSettings } from "../permissions/realm-settings.ts";
import { SYSTEM_GROUP } from "../model/roles.ts";
import { groupSettingValue } from "../present/user-groups.ts";
import { emailDomain } from "../model/emails.ts";
import type { StateProvider } from "./provider.ts";
import { loadGroupIndex, type GroupIndex } from "../store/groups/group-index.ts";
import { SERVER_SUPPORTED_PERMISSION_SETTINGS } from "./permission-settings.ts";

/** Scalar settings shown as `realm_<name>`. */
const PRESENTED_SETTINGS = [
  "allow_message_editing", "allow_edit_history", "message_edit_history_visibility_policy", "mandatory_topics",
  "topics_policy", "message_content_edit_limit_seconds", "message_content_delete_limit_seconds",
  "move_messages_within_stream_limit_seconds", "move_messages_between_streams_limit_seconds",
  "waiting_period_threshold", "enable_spectator_access", "invite_required", "emails_restricted_to_domains",
  "default_language", "digest_emails_enabled", "inline_image_preview", "inline_url_embed_preview",
  "send_welcome_emails", "message_retention_days", "moderation_request_channel_id", "digest_weekday",
  "disallow_disposable_email_addresses", "email_changes_disabled", "name_changes_disabled",
  "avatar_changes_disabled", "require_unique_names", "message_content_allowed_in_email_notifications",
  "want_advertise_in_communities_directory", "video_chat_provider", "jitsi_server_url", "giphy_rating",
  "default_code_block_language", "enable_read_receipts", "presence_disabled", "enable_guest_user_indicator",
  "org_type", "plan_type", "new_stream_announcements_stream_id", "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id", "welcome_message_custom_text",
] as const satisfies ReadonlyArray<keyof RealmSettings>;

/** Upload limits (MiB) for avatars, icons and logos. */
const IMAGE_UPLOAD_LIMIT_MIB = 5;
/** Zulip's presence and typing intervals, which clients pace themselves by. */
const PRESENCE_PING_INTERVAL_SECONDS = 60;
const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 140;
const TYPING = { startedExpiryMs: 45_000, stoppedWaitMs: 12_000, startedWaitMs: 30_000 };
/** Zulip's PASSWORD_MAX_LENGTH. */
const PASSWORD_MAX_LENGTH = 100;
/** Zulip's MIN_/MAX_DEACTIVATED_REALM_DELETION_DAYS defaults (null: no maximum). */
const DEACTIVATED_REALM_DELETION_DAYS = { min: 14, max: null };
/** Long-poll client timeout: comfortably above the heartbeat interval. */
const LONGPOLL_MARGIN_SECONDS = 30;
const DEFAULT_JITSI_URL = "https://meet.jit.si";

/** The pre-FL 352 wildcard_mention_policy values of the system groups. */
const WILDCARD_MENTION_POLICY: Readonly<Record<string, number>> = {
  [SYSTEM_GROUP.everyone]: 1,
  [SYSTEM_GROUP.members]: 2,
  [SYSTEM_GROUP.fullMembers]: 3,
  [SYSTEM_GROUP.administrators]: 5,
  [SYSTEM_GROUP.nobody]: 6,
  [SYSTEM_GROUP.moderators]: 7,
};
/** Wildcard mentions by anyone: Zulip's answer for a group no pre-FL 352 value describes. */
const WILDCARD_EVERYONE_POLICY = 1;

/** The pre-FL 341 policy enums of the system groups (Zulip's SYSTEM_GROUPS_ENUM_MAP). */
const POLICY_OF_GROUP: Readonly<Record<string, number>> = {
  [SYSTEM_GROUP.members]: 1,
  [SYSTEM_GROUP.administrators]: 2,
  [SYSTEM_GROUP.fullMembers]: 3,
  [SYSTEM_GROUP.moderators]: 4,
  [SYSTEM_GROUP.everyone]: 5,
  [SYSTEM_GROUP.nobody]: 6,
  [SYSTEM_GROUP.owners]: 7,
};
const COMMON_POLICIES = [1, 2, 3, 4];
const WEB_PUBLIC_POLICIES = [2, 4, 7, 6];
const MEMBERS_ONLY_POLICY = 1;
const MODERATORS_ONLY_POLICY = 4;

function settingKeys(settings: RealmSettings): Record<string, unknown> {
  return Object.fromEntries(PRESENTED_SETTINGS.map((key) => [`realm_${key}`, settings[key]]));
}

/**
 * A group setting as its pre-group-settings enum (Zulip's
 * get_corresponding_policy_value_for_group_setting): the system group's value if the enum had
 * it, else the enum's largest group.
 */
function legacyPolicy(index: GroupIndex, groupId: number, valid: readonly number[], fallback: number): number {
  const policy = POLICY_OF_GROUP[index.groups.get(groupId)?.name ?? ""];
  return policy !== undefined && valid.includes(policy) ? policy : fallback;
}

function groupSettingKeys(settings: RealmSettings, index: GroupIndex): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(REALM_GROUP_SETTINGS.map((key) => [`realm_${key}`, groupSettingValue(index, settings[key])]));
  // TODO/compatibility: deprecated enum forms Zulip still sends (clients such as zulip-flutter
  // require realm_wildcard_mention_policy, replaced by can_mention_many_users_group at FL 352).
  const name = index.groups.get(settings.can_mention_many_users_group)?.name ?? "";
  out.realm_wildcard_mention_policy = WILDCARD_MENTION_POLICY[name] ?? WILDCARD_EVERYONE_POLICY;
  out.realm_create_public_stream_policy = legacyPolicy(index, settings.can_create_public_channel_group, COMMON_POLICIES, MEMBERS_ONLY_POLICY);
  out.realm_create_private_stream_policy = legacyPolicy(index, settings.can_create_private_channel_group, COMMON_POLICIES, MEMBERS_ONLY_POLICY);
  out.realm_create_web_public_stream_policy = legacyPolicy(index, settings.can_create_web_public_channel_group, WEB_PUBLIC_POLICIES, MODERATORS_ONLY_POLICY);
  return out;
}

function identityKeys(ctx: SnapshotCtx): Record<string, unknown> {
  const url = ctx.config.externalUrl;
  return {
    realm_name: ctx.realm.name,
    realm_description: ctx.realm.description,
    realm_date_created: ctx.realm.date_created,
    realm_url: url,
    realm_uri: url,
    realm_icon_url: `${url}/static/images/logo/zulip-icon-128x128.png`,
    realm_icon_source: "G",
    realm_logo_url: `${url}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_logo_source: "D",
    realm_night_logo_url: `${url}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_night_logo_source: "D",
    realm_bot_domain: emailDomain(url),
    realm_authentication_methods: { Email: { enabled: true, available: true } },
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_push_notifications_enabled: ctx.config.pushRelay !== null,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_upload_quota_mib: null,
    realm_is_zephyr_mirror_realm: false,
    realm_available_video_chat_providers: { disabled: { name: "None", id: 0 }, jitsi_meet: { name: "Jitsi Meet", id: 1 } },
    // Not a setting here yet: Zulip's default (warn when writing a direct message to a guest).
    realm_enable_guest_user_dm_warning: true,
    realm_default_external_accounts: {
      github: { name: "GitHub", text: "GitHub", hint: "Enter your GitHub username", url_pattern: "https://github.com/%(username)s" },
      twitter: { name: "Twitter", text: "Twitter", hint: "Enter your Twitter username", url_pattern: "https://twitter.com/%(username)s" },
    },
  };
}

function serverKeys(ctx: SnapshotCtx, settings: RealmSettings): Record<string, unknown> {
  const url = ctx.config.externalUrl;
  return {
    max_stream_name_length: settings.max_stream_name_length,
    max_stream_description_length: settings.max_stream_description_length,
    realm_empty_topic_display_name: settings.realm_empty_topic_display_name,
    max_file_upload_size_mib: Math.floor(ctx.config.maxBodyBytes / (1024 * 1024)),
    max_avatar_file_size_mib: IMAGE_UPLOAD_LIMIT_MIB,
    max_icon_file_size_mib: IMAGE_UPLOAD_LIMIT_MIB,
    max_logo_file_size_mib: IMAGE_UPLOAD_LIMIT_MIB,
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECONDS,
    server_presence_offline_threshold_seconds: PRESENCE_OFFLINE_THRESHOLD_SECONDS,
    server_typing_started_expiry_period_milliseconds: TYPING.startedExpiryMs,
    server_typing_stopped_wait_period_milliseconds: TYPING.stoppedWaitMs,
    server_typing_started_wait_period_milliseconds: TYPING.startedWaitMs,
    event_queue_longpoll_timeout_seconds: ctx.config.heartbeatSeconds + LONGPOLL_MARGIN_SECONDS,
    server_generation: ctx.queues.generation,
    server_emoji_data_url: `${url}/static/generated/emoji/emoji_api.json`,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    server_thumbnail_formats: [],
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_web_public_streams_enabled: true,
    server_jitsi_server_url: DEFAULT_JITSI_URL,
    jitsi_server_url: settings.jitsi_server_url ?? DEFAULT_JITSI_URL,
    giphy_rating_options: {
      disabled: { name: "GIPHY disabled", id: 0 },
      y: { name: "Rated Y", id: 1 },
      g: { name: "Rated G", id: 2 },
      pg: { name: "Rated PG", id: 3 },
      pg13: { name: "Rated PG-13", id: 4 },
      r: { name: "Rated R", id: 5 },
    },
    password_min_length: 6,
    password_max_length: PASSWORD_MAX_LENGTH,
    password_min_guesses: 10000,
    server_supported_permission_settings: SERVER_SUPPORTED_PERMISSION_SETTINGS,
    server_min_deactivated_realm_deletion_days: DEACTIVATED_REALM_DELETION_DAYS.min,
    server_max_deactivated_realm_deletion_days: DEACTIVATED_REALM_DELETION_DAYS.max,
    // No topic summarization model on this server.
    server_can_summarize_topics: false,
    settings_send_digest_emails: ctx.config.smtp !== null,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: "",
    development_environment: false,
  };
}

/** The `realm` part of the snapshot, and `realm_billing` (FL 363), when the client wants them. */
export const realmState: StateProvider = {
  async fetch(ctx, _opts, want) {
    // No billing here, so never a pending sponsorship request.
    const billing = want("realm_billing") ? { realm_billing: { has_pending_sponsorship_request: false } } : {};
    if (!want("realm")) return billing;
    const settings = realmSettings(ctx.realm);
    const index = await loadGroupIndex(ctx.db, ctx.realm.id);
    return { ...identityKeys(ctx), ...settingKeys(settings), ...groupSettingKeys(settings, index), ...serverKeys(ctx, settings), ...billing };
  },
};

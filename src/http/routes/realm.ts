/** Organization settings: PATCH /realm (administrators; some settings owners only), and the preview of the Welcome Bot's custom message. */
import { z } from "zod";
import { updateRealm } from "../../actions/organization/realm-settings.ts";
import { testWelcomeBotCustomMessage } from "../../actions/onboarding/welcome-bot.ts";
import { MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH, REALM_GROUP_SETTINGS, type RealmGroupSetting } from "../../permissions/realm-settings.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, int, json, str } from "../params.ts";
import { groupSettingChange, retentionDays } from "../stream-params.ts";

/** Zulip's realm name and description bounds (MAX_REALM_NAME_LENGTH, MAX_REALM_DESCRIPTION_LENGTH). */
const MAX_NAME_LENGTH = 40;
const MAX_DESCRIPTION_LENGTH = 1000;

/** Zulip's enum parameters: refused with "Invalid <name>". */
const namedValue = (...values: string[]) => str().refine((v) => values.includes(v), { message: "Invalid {var_name}" });
const intValue = (...values: number[]) => int().refine((v) => values.includes(v), { message: "Invalid {var_name}" });

/** Zulip's organization types (OrgTypeEnum). */
const ORG_TYPES = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000];

/** One optional `{new, old?}` parameter per realm permission setting. */
const groupSettingParams = Object.fromEntries(REALM_GROUP_SETTINGS.map((name) => [name, json(groupSettingChange).optional()])) as Record<
  RealmGroupSetting,
  z.ZodOptional<ReturnType<typeof json<typeof groupSettingChange>>>
>;

const realmParams = z.object({
  allow_message_editing: bool().optional(),
  avatar_changes_disabled: bool().optional(),
  default_code_block_language: str().optional(),
  default_language: str().optional(),
  description: str().max(MAX_DESCRIPTION_LENGTH).optional(),
  digest_emails_enabled: bool().optional(),
  digest_weekday: intValue(0, 1, 2, 3, 4, 5, 6).optional(),
  disallow_disposable_email_addresses: bool().optional(),
  email_changes_disabled: bool().optional(),
  emails_restricted_to_domains: bool().optional(),
  enable_guest_user_indicator: bool().optional(),
  enable_read_receipts: bool().optional(),
  enable_spectator_access: bool().optional(),
  giphy_rating: int().optional(),
  inline_image_preview: bool().optional(),
  inline_url_embed_preview: bool().optional(),
  invite_required: bool().optional(),
  jitsi_server_url: json(z.string()).optional(),
  message_content_allowed_in_email_notifications: bool().optional(),
  message_content_delete_limit_seconds: retentionDays().optional(),
  message_content_edit_limit_seconds: retentionDays().optional(),
  message_edit_history_visibility_policy: namedValue("all", "moves", "none").optional(),
  message_retention_days: retentionDays().optional(),
  moderation_request_channel_id: int().optional(),
  move_messages_between_streams_limit_seconds: retentionDays().optional(),
  move_messages_within_stream_limit_seconds: retentionDays().optional(),
  name: str().max(MAX_NAME_LENGTH).optional(),
  name_changes_disabled: bool().optional(),
  new_stream_announcements_stream_id: int().optional(),
  org_type: intValue(...ORG_TYPES).optional(),
  require_unique_names: bool().optional(),
  send_welcome_emails: bool().optional(),
  signup_announcements_stream_id: int().optional(),
  topics_policy: namedValue("allow_empty_topic", "disable_empty_topic").optional(),
  video_chat_provider: int().optional(),
  waiting_period_threshold: int({ min: 0 }).optional(),
  want_advertise_in_communities_directory: bool().optional(),
  welcome_message_custom_text: str().max(MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH).optional(),
  zulip_update_announcements_stream_id: int().optional(),
  ...groupSettingParams,
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "PATCH",
    path: "/realm",
    auth: "user",
    adminOnly: true,
    params: realmParams,
    handler: (p, ctx) => updateRealm(ctx, p),
  }),
  defineEndpoint({
    method: "POST",
    path: "/realm/test_welcome_bot_custom_message",
    auth: "user",
    adminOnly: true,
    params: z.object({ welcome_message_custom_text: str().max(MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH) }),
    handler: (p, ctx) => testWelcomeBotCustomMessage(ctx, p),
  }),
];

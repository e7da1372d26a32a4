/**
 * Personal settings: PATCH /settings with its legacy aliases /settings/display and
 * /settings/notifications (the Python bindings still call them; Zulip routes all three to one
 * view), and the realm's defaults for new users (PATCH /realm/user_settings_defaults).
 */
import { z } from "zod";
import { updateRealmUserDefaults } from "../../actions/organization/user-defaults.ts";
import { isTimeZone } from "../../actions/users/setting-rules.ts";
import { updateSettings } from "../../actions/users/settings.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, int, intIn, NOT_IN_LIST, str } from "../params.ts";

/** A string among `values` (Zulip's check_string_in_validator). */
const stringIn = (...values: string[]) => str().refine((v) => values.includes(v), { message: NOT_IN_LIST });
/** A string among `values`, refused as Zulip's enum parameters and literals are. */
const oneOfNames = (...values: string[]) => str().refine((v) => values.includes(v), { message: "Invalid {var_name}" });

/** The display policies that share Zulip's 1-2-3 choices. */
const ONE_TO_THREE = [1, 2, 3];
/** Zulip's automatic topic visibility policies (1 participate, 2 send, 3 start, 4 never). */
const VISIBILITY_POLICIES = [1, 2, 3, 4];
const HOME_VIEWS = ["recent_topics", "inbox", "all_messages"];
const IMAGE_PREVIEW_MODES = ["always", "on_hover", "never"];

/** The personal settings both endpoints take, by their wire names (alphabetical, as Zulip declares them). */
const settingParams = {
  automatically_follow_topics_policy: intIn(...VISIBILITY_POLICIES).optional(),
  automatically_follow_topics_where_mentioned: bool().optional(),
  automatically_unmute_topics_in_muted_streams_policy: intIn(...VISIBILITY_POLICIES).optional(),
  color_scheme: intIn(...ONE_TO_THREE).optional(),
  demote_inactive_streams: intIn(...ONE_TO_THREE).optional(),
  desktop_icon_count_display: intIn(1, 2, 3, 4).optional(),
  display_emoji_reaction_users: bool().optional(),
  email_address_visibility: intIn(1, 2, 3, 4, 5).optional(),
  email_notifications_batching_period_seconds: int().optional(),
  emojiset: stringIn("google", "twitter", "text").optional(),
  enable_desktop_notifications: bool().optional(),
  enable_digest_emails: bool().optional(),
  enable_drafts_synchronization: bool().optional(),
  enable_followed_topic_audible_notifications: bool().optional(),
  enable_followed_topic_desktop_notifications: bool().optional(),
  enable_followed_topic_email_notifications: bool().optional(),
  enable_followed_topic_push_notifications: bool().optional(),
  enable_followed_topic_wildcard_mentions_notify: bool().optional(),
  enable_offline_email_notifications: bool().optional(),
  enable_offline_push_notifications: bool().optional(),
  enable_online_push_notifications: bool().optional(),
  enable_sounds: bool().optional(),
  enable_stream_audible_notifications: bool().optional(),
  enable_stream_desktop_notifications: bool().optional(),
  enable_stream_email_notifications: bool().optional(),
  enable_stream_push_notifications: bool().optional(),
  enter_sends: bool().optional(),
  fluid_layout_width: bool().optional(),
  hide_ai_features: bool().optional(),
  high_contrast_mode: bool().optional(),
  left_side_userlist: bool().optional(),
  message_content_in_email_notifications: bool().optional(),
  notification_sound: str().optional(),
  pm_content_in_desktop_notifications: bool().optional(),
  presence_enabled: bool().optional(),
  realm_name_in_email_notifications_policy: intIn(...ONE_TO_THREE).optional(),
  receives_typing_notifications: bool().optional(),
  resolved_topic_notice_auto_read_policy: oneOfNames("always", "except_followed", "never").optional(),
  send_private_typing_notifications: bool().optional(),
  send_read_receipts: bool().optional(),
  send_stream_typing_notifications: bool().optional(),
  starred_message_counts: bool().optional(),
  translate_emoticons: bool().optional(),
  twenty_four_hour_time: bool().optional(),
  user_list_style: intIn(...ONE_TO_THREE).optional(),
  web_animate_image_previews: stringIn(...IMAGE_PREVIEW_MODES).optional(),
  web_channel_default_view: intIn(1, 2, 4).optional(),
  web_escape_navigates_to_home_view: bool().optional(),
  web_font_size_px: int().optional(),
  web_home_view: stringIn(...HOME_VIEWS).optional(),
  web_left_sidebar_show_channel_folders: bool().optional(),
  web_left_sidebar_unreads_count_summary: bool().optional(),
  web_line_height_percent: int().optional(),
  web_mark_read_on_scroll_policy: intIn(...ONE_TO_THREE).optional(),
  web_navigate_to_sent_message: bool().optional(),
  web_stream_unreads_count_display_policy: intIn(...ONE_TO_THREE).optional(),
  web_suggest_update_timezone: bool().optional(),
  wildcard_mentions_notify: bool().optional(),
};

/** PATCH /settings: the settings, the user-only ones, and the account fields. */
const settingsParams = z.object({
  ...settingParams,
  allow_private_data_export: bool().optional(),
  default_language: str().optional(),
  email: str().optional(),
  enable_login_emails: bool().optional(),
  enable_marketing_emails: bool().optional(),
  full_name: str().optional(),
  new_password: str().optional(),
  old_password: str().optional(),
  timezone: str()
    .refine(isTimeZone, { message: "Invalid {var_name}: Not a recognized time zone" })
    .optional(),
});

/** PATCH /realm/user_settings_defaults: the settings an organization may set (two are literals there). */
const defaultsParams = z.object({
  ...settingParams,
  web_animate_image_previews: oneOfNames(...IMAGE_PREVIEW_MODES).optional(),
  web_home_view: oneOfNames(...HOME_VIEWS).optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  ...["/settings", "/settings/display", "/settings/notifications"].map((path) =>
    defineEndpoint({
      method: "PATCH",
      path,
      auth: "user",
      params: settingsParams,
      handler: (p, ctx, services) => updateSettings(ctx, services, p),
    }),
  ),
  defineEndpoint({
    method: "PATCH",
    path: "/realm/user_settings_defaults",
    auth: "user",
    params: defaultsParams,
    handler: (p, ctx) => updateRealmUserDefaults(ctx, p),
  }),
];

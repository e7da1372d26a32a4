/**
 * Personal settings not stored as user columns: Zulip's defaults, reading a user's stored
 * overrides (the users.settings JSON text) and writing changes into it. Pure: callers pass the
 * loaded user row or text.
 */

/** Zulip's defaults for the personal settings not stored on the user row. */
export const USER_SETTING_DEFAULTS = {
  twenty_four_hour_time: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  translate_emoticons: true,
  display_emoji_reaction_users: true,
  web_home_view: "inbox",
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: "google",
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: "on_hover",
  web_stream_unreads_count_display_policy: 2,
  enter_sends: false,
  enable_drafts_synchronization: true,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: "zulip",
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_digest_emails: true,
  enable_marketing_emails: true,
  enable_login_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  presence_enabled: true,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  web_navigate_to_sent_message: true,
  /** New users start with their realm's default_language instead (Zulip copies it at creation). */
  default_language: "en",
  // FL 329-411 additions.
  web_suggest_update_timezone: true,
  hide_ai_features: false,
  resolved_topic_notice_auto_read_policy: "except_followed",
  web_left_sidebar_unreads_count_summary: true,
  web_left_sidebar_show_channel_folders: true,
} as const;

/** The name of a personal setting kept in the users.settings JSON. */
export type UserSettingName = keyof typeof USER_SETTING_DEFAULTS;

/** A personal setting's value. */
export type UserSettingValue = boolean | number | string;

/** Whether a name is one of the personal settings kept in the users.settings JSON. */
export function isSettingName(name: string): name is UserSettingName {
  return Object.hasOwn(USER_SETTING_DEFAULTS, name);
}

/**
 * Settings clients without the user_settings_object capability (before FL 89) read at the top
 * level of the snapshot and hear about through update_display_settings (timezone too, a column).
 */
export const LEGACY_DISPLAY_SETTINGS: readonly string[] = [
  "color_scheme", "default_language", "web_home_view", "demote_inactive_streams", "emojiset",
  "enable_drafts_synchronization", "enter_sends", "fluid_layout_width", "high_contrast_mode",
  "left_side_userlist", "starred_message_counts", "translate_emoticons", "twenty_four_hour_time", "timezone",
];

/** The same for update_global_notifications. */
export const LEGACY_NOTIFICATION_SETTINGS: readonly string[] = [
  "enable_desktop_notifications", "enable_digest_emails", "enable_login_emails", "enable_marketing_emails",
  "email_notifications_batching_period_seconds", "enable_offline_email_notifications",
  "enable_offline_push_notifications", "enable_online_push_notifications", "enable_sounds",
  "enable_stream_audible_notifications", "enable_stream_desktop_notifications", "enable_stream_email_notifications",
  "enable_stream_push_notifications", "message_content_in_email_notifications", "notification_sound",
  "pm_content_in_desktop_notifications", "desktop_icon_count_display", "realm_name_in_email_notifications_policy",
  "presence_enabled", "wildcard_mentions_notify",
];

type Overrides = Readonly<Partial<Record<UserSettingName, unknown>>>;

/** Parsed settings columns by their text (users share few distinct ones); past the bound it starts over. */
const overridesByText = new Map<string, Overrides>();
const MAX_PARSED_SETTINGS = 10_000;

/** The user's stored overrides of known settings (unknown keys in the column are ignored). */
export function storedOverrides(user: { settings: string }): Overrides {
  let overrides = overridesByText.get(user.settings);
  if (!overrides) {
    const parsed: unknown = JSON.parse(user.settings);
    overrides = Object.freeze(parsed === null || typeof parsed !== "object" ? {} : Object.fromEntries(Object.entries(parsed).filter(([key]) => isSettingName(key))));
    if (overridesByText.size >= MAX_PARSED_SETTINGS) overridesByText.clear();
    overridesByText.set(user.settings, overrides);
  }
  return overrides;
}

/** One stored personal setting of a user, or its default (for the send path: no whole object). */
export function userSetting(user: { settings: string }, name: UserSettingName): unknown {
  const stored = storedOverrides(user)[name];
  return stored === undefined ? USER_SETTING_DEFAULTS[name] : stored;
}

/** A settings JSON object's entries (an unreadable or non-object text counts as empty). */
function parseObject(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text || "{}");
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? { ...parsed } : {};
}

/**
 * The settings text after `changes`: other keys (such as special permissions) are kept, and a
 * setting equal to its default is dropped, so users share few distinct texts.
 */
export function settingsTextWith(text: string, changes: Readonly<Partial<Record<UserSettingName, UserSettingValue>>>): string {
  const out = parseObject(text);
  for (const [name, value] of Object.entries(changes)) {
    if (!isSettingName(name) || value === undefined) continue;
    if (value === USER_SETTING_DEFAULTS[name]) delete out[name];
    else out[name] = value;
  }
  return JSON.stringify(out);
}

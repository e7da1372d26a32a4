/**
 * The register snapshot's personal settings: `user_settings` (FL 89), the legacy top-level
 * copies for clients without the user_settings_object capability, and the realm's defaults for
 * new users (`realm_user_settings_defaults`). The settings and their defaults: store/user-settings.ts.
 */
import type { SnapshotCtx } from "./provider.ts";
import { realmSettings } from "../permissions/realm-settings.ts";
import { EMAIL_VISIBILITY } from "../store/emails.ts";
import type { UserRow } from "../store/schema.ts";
import { storedOverrides, USER_SETTING_DEFAULTS } from "../store/user-settings.ts";
import type { StateProvider } from "./provider.ts";

/** Notification sounds and emoji sets this server offers. */
const AVAILABLE_NOTIFICATION_SOUNDS = ["chime", "ding", "zulip"];
const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
];

/** Settings Zulip still copies to the top level for pre-FL 89 clients, by legacy event type. */
const LEGACY_DISPLAY: readonly string[] = [
  "color_scheme", "default_language", "web_home_view", "demote_inactive_streams", "emojiset",
  "enable_drafts_synchronization", "enter_sends", "fluid_layout_width", "high_contrast_mode",
  "left_side_userlist", "starred_message_counts", "translate_emoticons", "twenty_four_hour_time", "timezone",
];
const LEGACY_NOTIFICATIONS: readonly string[] = [
  "enable_desktop_notifications", "enable_digest_emails", "enable_login_emails", "enable_marketing_emails",
  "email_notifications_batching_period_seconds", "enable_offline_email_notifications",
  "enable_offline_push_notifications", "enable_online_push_notifications", "enable_sounds",
  "enable_stream_audible_notifications", "enable_stream_desktop_notifications", "enable_stream_email_notifications",
  "enable_stream_push_notifications", "message_content_in_email_notifications", "notification_sound",
  "pm_content_in_desktop_notifications", "desktop_icon_count_display", "realm_name_in_email_notifications_policy",
  "presence_enabled", "wildcard_mentions_notify",
];

/** A user's (or, for spectators, the realm default) personal settings in the API shape. */
function userSettings(ctx: SnapshotCtx, user: UserRow | null): Record<string, unknown> {
  const realmLanguage = realmSettings(ctx.realm).default_language;
  return {
    ...USER_SETTING_DEFAULTS,
    default_language: realmLanguage,
    ...(user ? storedOverrides(user) : {}),
    timezone: user?.timezone ?? "",
    email_address_visibility: user?.email_address_visibility ?? EMAIL_VISIBILITY.everyone,
    available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS,
    emojiset_choices: EMOJISET_CHOICES,
  };
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, source[key]]));
}

/** user_settings, the legacy copies (without user_settings_object) and realm_user_settings_defaults. */
export const userSettingsState: StateProvider = {
  async fetch(ctx, opts, want) {
    const settings = userSettings(ctx, ctx.actor);
    const out: Record<string, unknown> = {};
    if (want("user_settings")) out.user_settings = settings;
    if (!opts.capabilities.user_settings_object) {
      if (want("update_display_settings")) Object.assign(out, pick(settings, [...LEGACY_DISPLAY, "emojiset_choices"]));
      if (want("update_global_notifications")) Object.assign(out, pick(settings, [...LEGACY_NOTIFICATIONS, "available_notification_sounds"]));
    }
    if (want("realm_user_settings_defaults")) {
      const { timezone: _timezone, ...defaults } = userSettings(ctx, null);
      out.realm_user_settings_defaults = defaults;
    }
    return out;
  },
};

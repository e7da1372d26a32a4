/**
 * The register snapshot's personal settings: `user_settings` (FL 89), the legacy top-level
 * copies for clients without the user_settings_object capability, and the realm's defaults for
 * new users (`realm_user_settings_defaults`). The settings and their defaults: model/user-settings.ts.
 */
import type { SnapshotCtx } from "./provider.ts";
import { realmSettings } from "../permissions/realm-settings.ts";
import { EMAIL_VISIBILITY } from "../model/emails.ts";
import type { UserRow } from "../store/schema/database.ts";
import { getRealmUserDefaults } from "../store/users/settings.ts";
import { LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS, storedOverrides, USER_SETTING_DEFAULTS } from "../model/user-settings.ts";
import type { StateProvider } from "./provider.ts";

/** Notification sounds and emoji sets this server offers. */
const AVAILABLE_NOTIFICATION_SOUNDS = ["chime", "ding", "zulip"];
const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
];

/** The lists every settings object carries. */
const CHOICES = { available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS, emojiset_choices: EMOJISET_CHOICES };

/** A user's personal settings in the API shape: Zulip's defaults under the user's stored values. */
function userSettings(user: UserRow): Record<string, unknown> {
  return {
    ...USER_SETTING_DEFAULTS,
    ...storedOverrides(user),
    timezone: user.timezone,
    email_address_visibility: user.email_address_visibility,
    ...CHOICES,
  };
}

/**
 * The settings new users get (spectators see them too): Zulip's defaults under the realm's
 * stored defaults, with the realm's default_language.
 */
async function realmDefaults(ctx: SnapshotCtx): Promise<Record<string, unknown>> {
  const stored: unknown = JSON.parse(await getRealmUserDefaults(ctx.db, ctx.realm.id));
  return {
    ...USER_SETTING_DEFAULTS,
    email_address_visibility: EMAIL_VISIBILITY.everyone,
    ...(stored !== null && typeof stored === "object" ? stored : {}),
    default_language: realmSettings(ctx.realm).default_language,
    ...CHOICES,
  };
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, source[key]]));
}

/** user_settings, the legacy copies (without user_settings_object) and realm_user_settings_defaults. */
export const userSettingsState: StateProvider = {
  async fetch(ctx, opts, want) {
    const wantsOwn = want("user_settings") || (!opts.capabilities.user_settings_object && (want("update_display_settings") || want("update_global_notifications")));
    const settings = wantsOwn ? (ctx.actor ? userSettings(ctx.actor) : { ...(await realmDefaults(ctx)), timezone: "" }) : {};
    const out: Record<string, unknown> = {};
    if (want("user_settings")) out.user_settings = settings;
    if (!opts.capabilities.user_settings_object) {
      if (want("update_display_settings")) Object.assign(out, pick(settings, [...LEGACY_DISPLAY_SETTINGS, "emojiset_choices"]));
      if (want("update_global_notifications")) Object.assign(out, pick(settings, [...LEGACY_NOTIFICATION_SETTINGS, "available_notification_sounds"]));
    }
    if (want("realm_user_settings_defaults")) out.realm_user_settings_defaults = await realmDefaults(ctx);
    return out;
  },
};

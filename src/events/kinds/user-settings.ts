/**
 * Personal-setting events: `user_settings` (FL 89), its legacy forms for clients without the
 * user_settings_object capability (`update_display_settings`, `update_global_notifications`;
 * events/adapters.ts drops them for the others), and the realm's defaults for new users.
 */

/** A setting's value on the wire. */
type SettingValue = boolean | number | string;

/** One personal setting changed; `language_name` comes with default_language. */
type UserSettingsUpdateEvent = { type: "user_settings"; op: "update"; property: string; value: SettingValue; language_name?: string };

/** The legacy form of a notification-setting change. */
type UpdateGlobalNotificationsEvent = { type: "update_global_notifications"; user: string; notification_name: string; setting: SettingValue };

/** The legacy form of a display-setting change (timezone included). */
type UpdateDisplaySettingsEvent = { type: "update_display_settings"; user: string; setting_name: string; setting: SettingValue; language_name?: string };

/** One of the realm's defaults for new users changed (Zulip's realm_user_settings_defaults). */
type RealmUserSettingsDefaultsEvent = { type: "realm_user_settings_defaults"; op: "update"; property: string; value: SettingValue };

/** Every event this file declares. */
export type UserSettingsEvent = UserSettingsUpdateEvent | UpdateGlobalNotificationsEvent | UpdateDisplaySettingsEvent | RealmUserSettingsDefaultsEvent;

/** The modern event for one changed personal setting. */
export function userSettingsUpdateEvent(property: string, value: SettingValue, languageName?: string): UserSettingsUpdateEvent {
  const event: UserSettingsUpdateEvent = { type: "user_settings", op: "update", property, value };
  if (languageName !== undefined) event.language_name = languageName;
  return event;
}

/** The legacy notification-setting event; `email` is the user's API email. */
export function updateGlobalNotificationsEvent(email: string, name: string, setting: SettingValue): UpdateGlobalNotificationsEvent {
  return { type: "update_global_notifications", user: email, notification_name: name, setting };
}

/** The legacy display-setting event; `email` is the user's API email. */
export function updateDisplaySettingsEvent(email: string, name: string, setting: SettingValue, languageName?: string): UpdateDisplaySettingsEvent {
  const event: UpdateDisplaySettingsEvent = { type: "update_display_settings", user: email, setting_name: name, setting };
  if (languageName !== undefined) event.language_name = languageName;
  return event;
}

/** The event for one changed default of new users' settings. */
export function realmUserSettingsDefaultsEvent(property: string, value: SettingValue): RealmUserSettingsDefaultsEvent {
  return { type: "realm_user_settings_defaults", op: "update", property, value };
}

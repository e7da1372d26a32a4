/**
 * Events of organization configuration and user status: user_status, custom_profile_fields,
 * realm_playgrounds and realm_linkifiers, plus the personal-setting events that `away` causes.
 */
import type { ApiLinkifier, ApiPlayground } from "../../present/organization.ts";

/** Changed parts of a user's status: only the keys that were set (emoji keys together). */
export type UserStatusChange = { away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };

/** A user's status changed; sent to the users who can access that user (FL 228). */
type UserStatusEvent = { type: "user_status"; user_id: number } & UserStatusChange;

/** The realm's whole list of custom profile fields, after any change to it. */
type CustomProfileFieldsEvent = { type: "custom_profile_fields"; fields: Record<string, unknown>[] };

/** The realm's whole list of code playgrounds, after any change to it. */
type RealmPlaygroundsEvent = { type: "realm_playgrounds"; realm_playgrounds: ApiPlayground[] };

/** The realm's ordered linkifiers, after any change (only to clients with linkifier_url_template). */
type RealmLinkifiersEvent = { type: "realm_linkifiers"; realm_linkifiers: ApiLinkifier[] };

/** One personal setting changed (FL 89). */
type UserSettingsUpdateEvent = { type: "user_settings"; op: "update"; property: string; value: boolean | number | string };

/** The legacy form of a notification-setting change, for clients without user_settings_object. */
type UpdateGlobalNotificationsEvent = { type: "update_global_notifications"; user: string; notification_name: string; setting: boolean | number | string };

/**
 * The legacy form of a display-setting change, for clients without user_settings_object. No
 * action sends it yet; the type is here so its queue adapter is checked against it.
 */
type UpdateDisplaySettingsEvent = {
  type: "update_display_settings";
  user: string;
  setting_name: string;
  setting: boolean | number | string;
  language_name?: string;
};

/** Every event this file declares. */
export type OrganizationEvent =
  | UserStatusEvent
  | CustomProfileFieldsEvent
  | RealmPlaygroundsEvent
  | RealmLinkifiersEvent
  | UserSettingsUpdateEvent
  | UpdateGlobalNotificationsEvent
  | UpdateDisplaySettingsEvent;

/** The event for a status change. */
export function userStatusEvent(userId: number, change: UserStatusChange): UserStatusEvent {
  return { type: "user_status", user_id: userId, ...change };
}

/** The event carrying the realm's current custom profile fields. */
export function customProfileFieldsEvent(fields: Record<string, unknown>[]): CustomProfileFieldsEvent {
  return { type: "custom_profile_fields", fields };
}

/** The event carrying the realm's current code playgrounds. */
export function realmPlaygroundsEvent(playgrounds: ApiPlayground[]): RealmPlaygroundsEvent {
  return { type: "realm_playgrounds", realm_playgrounds: playgrounds };
}

/** The event carrying the realm's current linkifiers, in order. */
export function realmLinkifiersEvent(linkifiers: ApiLinkifier[]): RealmLinkifiersEvent {
  return { type: "realm_linkifiers", realm_linkifiers: linkifiers };
}

/** The modern event for one changed personal setting. */
export function userSettingsUpdateEvent(property: string, value: boolean | number | string): UserSettingsUpdateEvent {
  return { type: "user_settings", op: "update", property, value };
}

/** The legacy notification-setting event (the adapter drops it for user_settings_object clients). */
export function updateGlobalNotificationsEvent(email: string, name: string, setting: boolean | number | string): UpdateGlobalNotificationsEvent {
  return { type: "update_global_notifications", user: email, notification_name: name, setting };
}

/**
 * Events of organization configuration and user status: realm (settings), user_status,
 * custom_profile_fields, realm_playgrounds and realm_linkifiers.
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

/** A realm setting changed (Zulip's simpler format; clients treat it as update_dict). */
type RealmUpdateEvent = { type: "realm"; op: "update"; property: string; value: boolean | number | string | null };

/** Realm settings changed together; `property` is always "default" (deprecated upstream). */
type RealmUpdateDictEvent = { type: "realm"; op: "update_dict"; property: "default"; data: Record<string, unknown> };

/** Every event this file declares. */
export type OrganizationEvent =
  | UserStatusEvent
  | CustomProfileFieldsEvent
  | RealmPlaygroundsEvent
  | RealmLinkifiersEvent
  | RealmUpdateEvent
  | RealmUpdateDictEvent;

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

/** The event for one changed realm setting, in the `update` format. */
export function realmUpdateEvent(property: string, value: boolean | number | string | null): RealmUpdateEvent {
  return { type: "realm", op: "update", property, value };
}

/** The event for realm settings changed together, in the `update_dict` format. */
export function realmUpdateDictEvent(data: Record<string, unknown>): RealmUpdateDictEvent {
  return { type: "realm", op: "update_dict", property: "default", data };
}

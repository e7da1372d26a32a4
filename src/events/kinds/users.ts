/** realm_user events: a user joined, or some of a user's data changed. */
import { INACCESSIBLE_USER_NAME } from "../../present/users.ts";

/** A new account (person is a whole User object). */
type RealmUserAddEvent = { type: "realm_user"; op: "add"; person: Record<string, unknown> };

/** One change to a user: `person` holds `user_id` and the changed field(s) only. */
type RealmUserUpdateEvent = { type: "realm_user"; op: "update"; person: { user_id: number } & Record<string, unknown> };

/**
 * A user the recipient can no longer access (FL 228: guests who shared only channels with a
 * deactivated user); `full_name` is the placeholder name of inaccessible users.
 */
type RealmUserRemoveEvent = { type: "realm_user"; op: "remove"; person: { user_id: number; full_name: string } };

/** Every realm_user event. */
export type RealmUserEvent = RealmUserAddEvent | RealmUserUpdateEvent | RealmUserRemoveEvent;

/** The event announcing a new user or bot. */
export function realmUserAddEvent(person: Record<string, unknown>): RealmUserAddEvent {
  return { type: "realm_user", op: "add", person };
}

/** The event for one changed property of a user (`{full_name}`, `{role}`, `{is_active}`, ...). */
export function realmUserUpdateEvent(userId: number, change: Record<string, unknown>): RealmUserUpdateEvent {
  return { type: "realm_user", op: "update", person: { user_id: userId, ...change } };
}

/** The event taking a user away from someone who lost access to them. */
export function realmUserRemoveEvent(userId: number): RealmUserRemoveEvent {
  return { type: "realm_user", op: "remove", person: { user_id: userId, full_name: INACCESSIBLE_USER_NAME } };
}

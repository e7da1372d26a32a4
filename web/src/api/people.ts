/**
 * People beyond their names: a user's status (emoji and text, POST /users/me/status) and the
 * organization's custom profile fields with each user's values. Each call is an endpoint Parley
 * serves; the shapes are the register snapshot's (`user_status`, `custom_profile_fields`) and
 * their events'.
 */
import { call } from "./client.ts";

/** A user's status; every key optional (nothing set: an empty object). `away` is the deprecated mirror of presence_enabled off. */
export type UserStatus = { away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };

/** An organization's custom profile field: its type (1 short text ... 8 pronouns) and, for some types, JSON `field_data`. */
export type ProfileField = { id: number; type: number; order: number; name: string; hint: string; field_data: string; display_in_profile_summary?: boolean };

/** One user's value of a field (a user field's value is a JSON list of user ids). */
export type ProfileValue = { value: string; rendered_value?: string };

/** The change a `realm_user` update carries for one field (a null value: cleared). */
export type ProfileValueChange = { id: number; value: string | null; rendered_value?: string | null };

/** What POST /users/me/status takes: absent keys stay as they are; empty ones clear. */
export type StatusChange = { status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };

/** The calls, typed. */
export const peopleApi = {
  setStatus: (change: StatusChange) => call<object>("POST", "/users/me/status", change),
};

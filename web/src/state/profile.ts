/**
 * What a user's card shows beyond the name: the organization's custom profile fields (the
 * snapshot's `custom_profile_fields`, replaced by `custom_profile_fields` events) and each
 * user's values (`profile_data`, changed one field at a time by `realm_user` updates), read per
 * field type as upstream shows them; the role's name; the user's local time from their time zone.
 */
import { signal } from "@preact/signals";
import type { ProfileField, ProfileValueChange } from "../api/people.ts";
import type { RegisterResponse, User } from "../api/types.ts";
import { realmSettings } from "./store.ts";

/** Zulip's custom profile field types. */
export const FIELD_TYPE = { shortText: 1, longText: 2, select: 3, date: 4, url: 5, user: 6, externalAccount: 7, pronouns: 8 } as const;

/** The organization's fields, in their order. */
export const profileFields = signal<readonly ProfileField[]>([]);

/** Takes the fields from a register snapshot. */
export function loadProfileFields(state: RegisterResponse): void {
  applyProfileFields(state.custom_profile_fields ?? []);
}

/** A `custom_profile_fields` event: the whole new list. */
export function applyProfileFields(fields: readonly ProfileField[]): void {
  profileFields.value = [...fields].sort((a, b) => a.order - b.order);
}

/** A `realm_user` update merged into the user it names: its fields, and a profile field's new value. */
export function updatedUser(known: User, person: Partial<User> & { custom_profile_field?: ProfileValueChange }): User {
  const { custom_profile_field: change, ...fields } = person;
  const next: User = { ...known, ...fields };
  if (change !== undefined) {
    const data = { ...known.profile_data };
    if (change.value === null || change.value === "") delete data[String(change.id)];
    else data[String(change.id)] = { value: change.value, ...(typeof change.rendered_value === "string" ? { rendered_value: change.rendered_value } : {}) };
    next.profile_data = data;
  }
  return next;
}

/** One line of a card: a field's name and its value, as text, a link or people. */
export type ProfileEntry = { id: number; name: string } & ({ kind: "text"; text: string; long: boolean } | { kind: "link"; text: string; url: string } | { kind: "users"; userIds: number[] });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** A select field's option text for a value (the option's key). */
function optionText(field: ProfileField, value: string): string {
  const options = parseJson(field.field_data);
  const option: unknown = typeof options === "object" && options !== null ? Object.entries(options).find(([key]) => key === value)?.[1] : undefined;
  return typeof option === "object" && option !== null && "text" in option && typeof option.text === "string" ? option.text : value;
}

/** "May 1, 2024" for a date field's "2024-05-01" (the date as written, whatever the reader's zone). */
function dateText(value: string): string {
  const at = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? value : at.toLocaleDateString(undefined, { timeZone: "UTC", year: "numeric", month: "long", day: "numeric" });
}

/** The URL pattern of an external account field: its own (custom), or the organization's default for its subtype. */
function accountPattern(field: ProfileField): string | null {
  const data = parseJson(field.field_data);
  if (typeof data !== "object" || data === null) return null;
  if ("url_pattern" in data && typeof data.url_pattern === "string") return data.url_pattern;
  const subtype = "subtype" in data && typeof data.subtype === "string" ? data.subtype : "";
  const defaults = realmSettings.value.realm_default_external_accounts;
  const preset: unknown = typeof defaults === "object" && defaults !== null ? Object.entries(defaults).find(([key]) => key === subtype)?.[1] : undefined;
  return typeof preset === "object" && preset !== null && "url_pattern" in preset && typeof preset.url_pattern === "string" ? preset.url_pattern : null;
}

function entryOf(field: ProfileField, value: string): ProfileEntry {
  const base = { id: field.id, name: field.name };
  switch (field.type) {
    case FIELD_TYPE.select:
      return { ...base, kind: "text", text: optionText(field, value), long: false };
    case FIELD_TYPE.date:
      return { ...base, kind: "text", text: dateText(value), long: false };
    case FIELD_TYPE.url:
      return isHttpUrl(value) ? { ...base, kind: "link", text: value, url: value } : { ...base, kind: "text", text: value, long: false };
    case FIELD_TYPE.user: {
      const ids = parseJson(value);
      return { ...base, kind: "users", userIds: Array.isArray(ids) ? ids.filter((id): id is number => typeof id === "number") : [] };
    }
    case FIELD_TYPE.externalAccount: {
      const url = accountPattern(field)?.replace("%(username)s", encodeURIComponent(value));
      return url !== undefined && isHttpUrl(url) ? { ...base, kind: "link", text: value, url } : { ...base, kind: "text", text: value, long: false };
    }
    default:
      return { ...base, kind: "text", text: value, long: field.type === FIELD_TYPE.longText };
  }
}

/** The user's filled-in fields, in the organization's order. */
export function profileEntries(user: User): ProfileEntry[] {
  const data = user.profile_data ?? {};
  return profileFields.value.flatMap((field) => {
    const value = data[String(field.id)]?.value;
    return value === undefined || value === "" ? [] : [entryOf(field, value)];
  });
}

/** Zulip's role names by role value. */
const ROLE_NAMES: Readonly<Record<number, string>> = { 100: "Owner", 200: "Administrator", 300: "Moderator", 400: "Member", 600: "Guest" };

/** What a user is in the organization: their role, or "Bot". */
export function roleName(user: User): string {
  return user.is_bot ? "Bot" : (ROLE_NAMES[user.role ?? 400] ?? "Member");
}

/** The time of day now where the user is ("3:45 PM"), or null without a (known) time zone. */
export function localTime(timezone: string | undefined, twentyFourHour: boolean, now = new Date()): string | null {
  if (timezone === undefined || timezone === "") return null;
  try {
    return now.toLocaleTimeString(undefined, { timeZone: timezone, hour: "numeric", minute: "2-digit", hour12: !twentyFourHour });
  } catch {
    // A zone this browser does not know.
    return null;
  }
}

/** The day the user joined ("March 3, 2024"), or null when unknown. */
export function joinedDate(user: User): string | null {
  const at = user.date_joined === undefined ? NaN : Date.parse(user.date_joined);
  return Number.isNaN(at) ? null : new Date(at).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });
}

/** User, bot and custom-profile-field rows as the API shows them: responses, snapshot and events. */
import crypto from "node:crypto";
import { ROLE } from "../model/roles.ts";
import type { CustomProfileFieldRow, ServiceRow, UserRow } from "../store/schema/database.ts";
import type { ProfileValueRow } from "../store/realm/custom-profile.ts";
import { apiEmail, dummyEmail, EMAIL_VISIBILITY } from "../model/emails.ts";
import { canSeeDeliveryEmail, type Viewer } from "../permissions/email-visibility.ts";

/** Custom profile field types, as /register's custom_profile_field_types lists them. */
export const CUSTOM_PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: "Short text" },
  LONG_TEXT: { id: 2, name: "Long text" },
  SELECT: { id: 3, name: "List of options" },
  DATE: { id: 4, name: "Date picker" },
  URL: { id: 5, name: "Link" },
  USER: { id: 6, name: "Person picker" },
  EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
  PRONOUNS: { id: 8, name: "Pronouns" },
} as const;

const hashes = new Map<string, string>();
/** Hashes kept; past it the memo starts over. */
const MAX_HASHES = 50_000;

/** Gravatar's key for an address (MD5 of the lower-cased address), remembered: every message shown hashes its sender's. */
function emailHash(email: string): string {
  let hash = hashes.get(email);
  if (hash === undefined) {
    hash = crypto.createHash("md5").update(email.toLowerCase()).digest("hex");
    if (hashes.size >= MAX_HASHES) hashes.clear();
    hashes.set(email, hash);
  }
  return hash;
}

/** Gravatar's URL for an address: md5 of the lower-cased address, identicon fallback, cache-busting version. */
export function gravatarUrl(email: string, version: number, medium = false): string {
  const hash = emailHash(email);
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon${medium ? "&s=500" : ""}&version=${version}`;
}

/**
 * The user's avatar URL: an uploaded avatar (avatar_source "U": so far only those an import
 * brought) at `/user_avatars/<realm_id>/<user_id>[-medium].png`, served by http/routes/files.ts;
 * otherwise the gravatar of the address.
 */
export function avatarUrl(user: Pick<UserRow, "id" | "realm_id" | "delivery_email" | "avatar_version" | "avatar_source">, medium = false): string {
  if (user.avatar_source === "U") return `/user_avatars/${user.realm_id}/${user.id}${medium ? "-medium" : ""}.png?version=${user.avatar_version}`;
  return gravatarUrl(user.delivery_email, user.avatar_version, medium);
}

/** The name shown for a user the viewer may not access (Zulip's UserProfile.INACCESSIBLE_USER_NAME). */
export const INACCESSIBLE_USER_NAME = "Unknown user";

/** The avatar shown for users the viewer may not access. */
export function unknownUserAvatarUrl(externalUrl: string): string {
  return `${externalUrl}/static/images/unknown-user-avatar.png`;
}

/** A UNIX time as Zulip writes date_joined: ISO 8601 in UTC, to the minute. */
function isoMinutes(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16) + "+00:00";
}

/** A user's profile_data object: field id → {value, rendered_value?}. */
type ProfileData = Record<string, { value: string; rendered_value?: string }>;

/** Builds profile_data from stored values. */
export function profileDataOf(values: ReadonlyArray<Readonly<ProfileValueRow>>): ProfileData {
  const out: ProfileData = {};
  for (const v of values) out[String(v.field_id)] = v.rendered_value === null ? { value: v.value } : { value: v.value, rendered_value: v.rendered_value };
  return out;
}

/** How to present a user to one viewer. */
type PresentOptions = {
  viewer: Viewer;
  host: string;
  /** The client computes gravatar URLs itself (avatar_url null when it can). */
  clientGravatar: boolean;
  /** False to leave avatar_url out (user_avatar_url_field_optional). */
  includeAvatarUrl: boolean;
  /** Values of a human's custom profile fields; undefined leaves profile_data out. */
  profileData?: ProfileData;
  /** False for the register snapshot's lists, which carry no is_active. */
  includeIsActive: boolean;
};

/** A user or bot in the API's User shape. */
export function presentUser(user: UserRow, opts: PresentOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    user_id: user.id,
    email: apiEmail(user, opts.host),
    delivery_email: canSeeDeliveryEmail(opts.viewer, user) ? user.delivery_email : null,
    full_name: user.full_name,
    date_joined: isoMinutes(user.date_joined),
    is_owner: user.role === ROLE.owner,
    is_admin: user.role === ROLE.owner || user.role === ROLE.administrator,
    is_guest: user.role === ROLE.guest,
    is_billing_admin: user.is_billing_admin === 1,
    is_bot: user.is_bot === 1,
    role: user.role,
    timezone: user.timezone,
    avatar_version: user.avatar_version,
  };
  if (opts.includeIsActive) out.is_active = user.is_active === 1;
  if (opts.includeAvatarUrl) {
    // Zulip lets the client compute a gravatar only when the address it hashes is public.
    const clientComputes = opts.clientGravatar && user.email_address_visibility === EMAIL_VISIBILITY.everyone && user.avatar_source === "G";
    out.avatar_url = clientComputes ? null : avatarUrl(user);
  }
  if (user.is_bot === 1) {
    out.bot_type = user.bot_type;
    out.bot_owner_id = user.bot_owner_id;
  } else if (opts.profileData !== undefined) {
    out.profile_data = opts.profileData;
  }
  return out;
}

/** The placeholder shown for a user the viewer may not access ("Unknown user"). */
export function presentUnknownUser(userId: number, opts: { host: string; externalUrl: string; nowSeconds: number; includeIsActive: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = {
    user_id: userId,
    email: dummyEmail(userId, opts.host),
    delivery_email: null,
    full_name: INACCESSIBLE_USER_NAME,
    date_joined: isoMinutes(opts.nowSeconds),
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_billing_admin: false,
    is_bot: false,
    role: ROLE.member,
    timezone: "",
    avatar_version: 1,
    avatar_url: unknownUserAvatarUrl(opts.externalUrl),
    profile_data: {},
  };
  if (opts.includeIsActive) out.is_active = true;
  return out;
}

/** A bot in the API's Bot shape (realm_bots and realm_bot add events). */
export function presentBot(bot: UserRow, services: ServiceRow[]): Record<string, unknown> {
  return {
    user_id: bot.id,
    email: bot.delivery_email,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bot.is_active === 1,
    api_key: bot.api_key,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: avatarUrl(bot),
    owner_id: bot.bot_owner_id,
    services: services.map((s) => ({ base_url: s.base_url, token: s.token, interface: s.interface })),
  };
}

/** A custom profile field in the API's CustomProfileField shape. */
export function presentProfileField(field: CustomProfileFieldRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: field.id,
    type: field.field_type,
    order: field.order,
    name: field.name,
    hint: field.hint,
    field_data: field.field_data,
    required: field.required === 1,
    editable_by_user: field.editable_by_user === 1,
  };
  // Zulip includes display_in_profile_summary only when true.
  if (field.display_in_profile_summary === 1) out.display_in_profile_summary = true;
  return out;
}

/**
 * PATCH /realm: organization settings an administrator changes (Zulip's update_realm), checked
 * by role (some only owners may change), written in one transaction, and announced to every
 * active user as Zulip announces them (`realm` events in the `update` or `update_dict` format).
 * Settings the register snapshot does not show are not taken (they are reported as ignored).
 */
import { AdministratorRequiredError, JsonableError, OwnerRequiredError } from "../../errors.ts";
import { realmUpdateDictEvent, realmUpdateEvent } from "../../events/kinds/organization.ts";
import type { ApiEvent } from "../../events/types.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { REALM_SCALAR_DEFAULTS, realmSettings, type RealmGroupSetting, type RealmSettings } from "../../permissions/realm-settings.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { lockRealm, updateRealmIdentity, updateRealmSettings } from "../../store/realm/realms.ts";
import { ROLE } from "../../model/roles.ts";
import type { RealmRow } from "../../store/schema/database.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { isLanguageCode } from "../users/setting-rules.ts";
import { doDropReplacedSettingGroups, storeGroupSettingChanges, type GroupSettingChange } from "./realm-group-settings.ts";
import { doUpdateFullMembers } from "./full-members.ts";

/** Realm settings kept in the settings JSON that PATCH /realm sets from a plain value. */
const PLAIN_SETTINGS = [
  "allow_message_editing", "avatar_changes_disabled", "default_code_block_language", "default_language",
  "digest_emails_enabled", "digest_weekday", "disallow_disposable_email_addresses", "email_changes_disabled",
  "emails_restricted_to_domains", "enable_guest_user_indicator", "enable_read_receipts", "enable_spectator_access",
  "giphy_rating", "inline_image_preview", "inline_url_embed_preview", "invite_required",
  "message_content_allowed_in_email_notifications", "message_edit_history_visibility_policy",
  "name_changes_disabled", "require_unique_names", "send_welcome_emails", "topics_policy", "video_chat_provider",
  "waiting_period_threshold", "want_advertise_in_communities_directory", "welcome_message_custom_text",
] as const satisfies ReadonlyArray<keyof RealmSettings>;

/** Time limits: a positive number of seconds, or "unlimited" (null). */
const TIME_LIMIT_SETTINGS = [
  "message_content_delete_limit_seconds", "message_content_edit_limit_seconds",
  "move_messages_within_stream_limit_seconds", "move_messages_between_streams_limit_seconds",
] as const satisfies ReadonlyArray<keyof RealmSettings>;

/** Channel-valued settings: a channel id, or a negative number for none (stored as -1). */
const CHANNEL_SETTINGS = [
  "moderation_request_channel_id", "new_stream_announcements_stream_id", "signup_announcements_stream_id", "zulip_update_announcements_stream_id",
] as const satisfies ReadonlyArray<keyof RealmSettings>;

type PlainSetting = (typeof PLAIN_SETTINGS)[number];
type TimeLimitSetting = (typeof TIME_LIMIT_SETTINGS)[number];
type ChannelSetting = (typeof CHANNEL_SETTINGS)[number];

/** What PATCH /realm accepts (wire names); absent keys are left alone. */
export type RealmInput = { [K in PlainSetting]?: RealmSettings[K] } & { [K in TimeLimitSetting]?: number | string } & { [K in ChannelSetting]?: number } & {
  [K in RealmGroupSetting]?: GroupSettingChange;
} & {
  name?: string;
  description?: string;
  jitsi_server_url?: string;
  message_retention_days?: number | string;
  org_type?: number;
};

/** Settings only owners may change (Zulip's update_realm). */
const OWNER_ONLY = [
  "invite_required", "create_multiuse_invite_group", "can_create_groups", "can_invite_users_group", "can_manage_all_groups",
  "can_manage_billing_group", "emails_restricted_to_domains", "disallow_disposable_email_addresses", "waiting_period_threshold",
] as const satisfies ReadonlyArray<keyof RealmInput>;

/** Video call providers this server offers: none, Jitsi Meet. */
const VIDEO_CHAT_PROVIDERS: readonly number[] = [0, 1];
/** GIPHY ratings: disabled, Y, G, PG, PG-13, R. */
const GIPHY_RATINGS: readonly number[] = [0, 1, 2, 3, 4, 5];
/** Zulip's cap on a custom Jitsi server's URL. */
const JITSI_URL_MAX_LENGTH = 200;

/** Settings Zulip announces in the update_dict format for historical reasons. */
const DICT_EVENT_SETTINGS: readonly string[] = ["allow_message_editing", "message_content_edit_limit_seconds"];

/** One change to make: the stored values it writes, its event and its entry in the response. */
type Change = { stored: Partial<RealmSettings>; event: ApiEvent; response: [string, unknown] };

/** Changes the organization's settings; every check runs before anything is written. */
export async function updateRealm(ctx: AuthedCtx, input: RealmInput): Promise<Record<string, unknown>> {
  checkRoles(ctx, input);
  const retention = input.message_retention_days === undefined ? undefined : parseRetention(input.message_retention_days);
  const limits = TIME_LIMIT_SETTINGS.flatMap((name) => {
    const raw = input[name];
    return raw === undefined ? [] : [[name, parseTimeLimit(name, raw)] as const];
  });
  const jitsi = input.jitsi_server_url === undefined ? undefined : parseJitsiUrl(input.jitsi_server_url);
  return withTransaction(ctx, async (tx, emit) => {
    const realm = await lockRealm(tx, ctx.realm.id);
    const current = realmSettings(realm);
    // Zulip walks its properties alphabetically (its parameters' order), name and description included.
    const changes: Change[] = [...identityChanges(realm, input), ...plainChanges(current, input)].sort((a, b) => a.response[0].localeCompare(b.response[0]));
    if (retention !== undefined) changes.push(...valueChange(current, "message_retention_days", retention));
    for (const [name, value] of limits) changes.push(...valueChange(current, name, value));
    if (jitsi !== undefined) changes.push(...valueChange(current, "jitsi_server_url", jitsi));
    const txCtx = { ...ctx, db: tx, realm };
    const groups = await storeGroupSettingChanges(tx, realm.id, current, input);
    for (const group of groups) {
      changes.push({ stored: { [group.setting]: group.groupId }, event: realmUpdateDictEvent({ [group.setting]: group.apiValue }), response: [group.setting, group.requested] });
    }
    for (const name of CHANNEL_SETTINGS) changes.push(...(await channelChange(txCtx, current, name, input[name])));
    if (input.org_type !== undefined) changes.push(...valueChange(current, "org_type", input.org_type));

    const stored: Record<string, unknown> = { ...JSON.parse(realm.settings), ...Object.assign({}, ...changes.map((c) => c.stored)) };
    for (const [key, value] of Object.entries(stored)) if (Object.hasOwn(REALM_SCALAR_DEFAULTS, key) && Reflect.get(REALM_SCALAR_DEFAULTS, key) === value) delete stored[key];
    const settings = JSON.stringify(stored);
    if (settings !== realm.settings) await updateRealmSettings(tx, realm.id, stored);
    await updateRealmIdentity(tx, realm.id, { name: changed(realm.name, input.name), description: changed(realm.description, input.description) });
    const env = { ...ctx, realm: { ...realm, settings }, emit };
    await doDropReplacedSettingGroups(tx, env, groups);
    const everyone = await activeUserIds(tx, realm.id);
    for (const change of changes) emit(change.event, everyone);
    if (input.waiting_period_threshold !== undefined && input.waiting_period_threshold !== current.waiting_period_threshold) {
      await doUpdateFullMembers(tx, env, input.waiting_period_threshold);
    }
    return Object.fromEntries(changes.map((c) => c.response));
  });
}

function changed(current: string, requested: string | undefined): string | undefined {
  return requested === undefined || requested === current ? undefined : requested;
}

/** Administrators only; some settings only owners (Zulip's update_realm, in its order). */
function checkRoles(ctx: AuthedCtx, input: RealmInput): void {
  const { actor } = ctx;
  if (!isRealmAdmin(actor)) throw new AdministratorRequiredError();
  if (input.default_language !== undefined && !isLanguageCode(input.default_language)) throw new JsonableError(`Invalid language '${input.default_language}'`);
  if (input.video_chat_provider !== undefined && !VIDEO_CHAT_PROVIDERS.includes(input.video_chat_provider)) {
    throw new JsonableError(`Invalid video_chat_provider ${input.video_chat_provider}`);
  }
  if (input.giphy_rating !== undefined && !GIPHY_RATINGS.includes(input.giphy_rating)) throw new JsonableError(`Invalid giphy_rating ${input.giphy_rating}`);
  const owner = actor.role === ROLE.owner;
  if (input.message_retention_days !== undefined && !owner) throw new OwnerRequiredError();
  if (OWNER_ONLY.some((name) => input[name] !== undefined) && !owner) throw new OwnerRequiredError();
}

/** Zulip's parse_message_retention_days: a positive count, or "unlimited"/"forever" (-1). */
function parseRetention(value: number | string): number {
  if (value === "unlimited" || value === "forever") return -1;
  if (typeof value === "string" || value <= 0) throw new JsonableError(`Bad value for 'message_retention_days': ${value}`);
  return value;
}

/** Zulip's parse_message_time_limit_setting: a positive count of seconds, or "unlimited" (null). */
function parseTimeLimit(name: string, value: number | string): number | null {
  if (value === "unlimited") return null;
  if (typeof value === "string" || value <= 0) throw new JsonableError(`Bad value for '${name}': ${value}`);
  return value;
}

/** A custom Jitsi server: "default" (the server's, stored as null) or an http(s) URL. */
function parseJitsiUrl(value: string): string | null {
  if (value === "default") return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url === null || !["http:", "https:"].includes(url.protocol) || value.length > JITSI_URL_MAX_LENGTH) {
    throw new JsonableError("jitsi_server_url is not an allowed_type");
  }
  return value;
}

/** Name and description, kept as realm columns. */
function identityChanges(realm: RealmRow, input: RealmInput): Change[] {
  const out: Change[] = [];
  for (const name of ["description", "name"] as const) {
    const value = input[name];
    if (value !== undefined && value !== realm[name]) out.push({ stored: {}, event: realmUpdateEvent(name, value), response: [name, "updated"] });
  }
  return out;
}

/** The plain settings that change. */
function plainChanges(current: RealmSettings, input: RealmInput): Change[] {
  return PLAIN_SETTINGS.flatMap((name) => {
    const value = input[name];
    return value === undefined ? [] : valueChange(current, name, value);
  });
}

/** The change of one setting to `value`, if it differs, with its event in Zulip's format. */
function valueChange<K extends keyof RealmSettings>(current: RealmSettings, name: K, value: RealmSettings[K]): Change[] {
  if (current[name] === value) return [];
  const response: [string, unknown] = [name, typeof value === "string" ? "updated" : value];
  if (name === "topics_policy") {
    // mandatory_topics (deprecated at FL 392) follows topics_policy.
    const mandatory = value === "disable_empty_topic";
    return [{ stored: { topics_policy: String(value), mandatory_topics: mandatory }, event: realmUpdateDictEvent({ topics_policy: value, mandatory_topics: mandatory }), response }];
  }
  if (name === "message_edit_history_visibility_policy") {
    // allow_edit_history (deprecated at FL 358) follows the policy: false only for "none".
    return [{ stored: { message_edit_history_visibility_policy: String(value), allow_edit_history: value !== "none" }, event: realmUpdateEvent(name, String(value)), response }];
  }
  const stored: Partial<RealmSettings> = { [name]: value };
  const event = DICT_EVENT_SETTINGS.includes(name) ? realmUpdateDictEvent({ [name]: value }) : realmUpdateEvent(name, scalar(value));
  return [{ stored, event, response }];
}

function scalar(value: unknown): boolean | number | string | null {
  return typeof value === "boolean" || typeof value === "number" || typeof value === "string" ? value : null;
}

/**
 * A channel-valued setting: a channel the administrator can see (the moderation request channel
 * must be private), or a negative id to turn it off (stored as -1, announced as sent, as Zulip).
 */
async function channelChange(ctx: AuthedCtx, current: RealmSettings, name: ChannelSetting, requested: number | undefined): Promise<Change[]> {
  if (requested === undefined || requested === current[name] || (requested < 0 && current[name] < 0)) return [];
  if (requested >= 0) {
    const { stream } = await accessStreamById(ctx, requested, { metadataOnly: true });
    if (name === "moderation_request_channel_id" && stream.invite_only !== 1) throw new JsonableError("Moderation request channel must be private.");
  }
  return [{ stored: { [name]: Math.max(requested, -1) }, event: realmUpdateEvent(name, requested), response: [name, requested] }];
}

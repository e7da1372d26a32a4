/**
 * The organization's settings from Zulip's Realm row. Parley keeps them as one JSON object of the
 * values that differ from Zulip's defaults (permissions/realm-settings.ts), group-valued
 * permissions as group ids: the export's group ids are kept, so its group settings come across
 * as they are. Settings that Zulip 10.0 still held as integer policies, and that Parley holds as
 * groups (as Zulip 11 does), are mapped as upstream's own migrations map them.
 */
import { REALM_GROUP_SETTING_DEFAULTS, REALM_GROUP_SETTINGS, REALM_SCALAR_DEFAULTS, type RealmGroupSetting } from "../../permissions/realm-settings.ts";
import { SYSTEM_GROUP, type SystemGroupName } from "../../model/roles.ts";
import { refuse } from "./import-env.ts";

/** A Zulip Realm row (fields read by name). */
type ZulipRealm = Record<string, unknown>;

/** Zulip's CommonPolicyEnum (invite_to_stream_policy, ...) as the system group upstream's migration gives. */
const COMMON_POLICY: Readonly<Record<number, SystemGroupName>> = {
  1: SYSTEM_GROUP.members,
  2: SYSTEM_GROUP.administrators,
  3: SYSTEM_GROUP.fullMembers,
  4: SYSTEM_GROUP.moderators,
};

/** Zulip's WildcardMentionPolicyEnum as can_mention_many_users_group (4, channel administrators, became administrators). */
const WILDCARD_MENTION_POLICY: Readonly<Record<number, SystemGroupName>> = {
  1: SYSTEM_GROUP.everyone,
  2: SYSTEM_GROUP.members,
  3: SYSTEM_GROUP.fullMembers,
  4: SYSTEM_GROUP.administrators,
  5: SYSTEM_GROUP.administrators,
  6: SYSTEM_GROUP.nobody,
  7: SYSTEM_GROUP.moderators,
};

/** Zulip's BotCreationPolicyEnum: [can_create_bots_group, can_create_write_only_bots_group]. */
const BOT_CREATION_POLICY: Readonly<Record<number, [SystemGroupName, SystemGroupName]>> = {
  1: [SYSTEM_GROUP.members, SYSTEM_GROUP.members],
  2: [SYSTEM_GROUP.administrators, SYSTEM_GROUP.members],
  3: [SYSTEM_GROUP.administrators, SYSTEM_GROUP.administrators],
};

/** Channel-valued settings Zulip names without `_id` (null: none), which Parley stores as an id or -1. */
const CHANNEL_SETTINGS = ["new_stream_announcements_stream", "signup_announcements_stream", "zulip_update_announcements_stream", "moderation_request_channel"] as const;

function policyGroup(realm: ZulipRealm, key: string, table: Readonly<Record<number, SystemGroupName>>): SystemGroupName | undefined {
  const value = realm[key];
  return typeof value === "number" ? table[value] : undefined;
}

/** Each group-valued permission: the export's group id, else the legacy policy's group, else Parley's default. */
function groupSettings(realm: ZulipRealm, systemGroups: ReadonlyMap<string, number>, groupIds: ReadonlySet<number>): Record<RealmGroupSetting, number> {
  const bots = typeof realm.bot_creation_policy === "number" ? BOT_CREATION_POLICY[realm.bot_creation_policy] : undefined;
  const legacy: Partial<Record<RealmGroupSetting, SystemGroupName>> = {
    can_add_subscribers_group: policyGroup(realm, "invite_to_stream_policy", COMMON_POLICY),
    can_mention_many_users_group: policyGroup(realm, "wildcard_mention_policy", WILDCARD_MENTION_POLICY),
    can_create_bots_group: bots?.[0],
    can_create_write_only_bots_group: bots?.[1],
  };
  const out = {} as Record<RealmGroupSetting, number>;
  for (const key of REALM_GROUP_SETTINGS) {
    const value = realm[key];
    if (typeof value === "number") {
      if (!groupIds.has(value)) refuse(`the organization's ${key} names user group ${value}, which the export does not hold`);
      out[key] = value;
      continue;
    }
    const name = legacy[key] ?? REALM_GROUP_SETTING_DEFAULTS[key];
    const id = systemGroups.get(name);
    if (id === undefined) refuse(`the export lacks the system group ${name}`);
    out[key] = id;
  }
  return out;
}

/** Whether an exported value has the type of Parley's setting (null only for the time limits and the nullable ones). */
function fitsSetting(key: string, fallback: unknown, value: unknown): boolean {
  if (value === null) return fallback === null || key.endsWith("_limit_seconds");
  return fallback === null ? typeof value === "string" || typeof value === "number" : typeof value === typeof fallback;
}

/** The scalar settings Parley keeps that differ from its defaults, read under Zulip's names. */
function scalarSettings(realm: ZulipRealm): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, fallback] of Object.entries(REALM_SCALAR_DEFAULTS)) {
    const value = realm[key];
    if (value === undefined || value === fallback) continue;
    if (!fitsSetting(key, fallback, value)) continue;
    out[key] = value;
  }
  for (const key of CHANNEL_SETTINGS) {
    const value = realm[key];
    if (typeof value === "number") out[`${key}_id`] = value;
  }
  // Zulip 10 kept edit-history visibility as a boolean; Parley as Zulip 11's policy (FL 358).
  if (realm.message_edit_history_visibility_policy === undefined && realm.allow_edit_history === false) out.message_edit_history_visibility_policy = "none";
  // Zulip 11 replaced mandatory_topics by topics_policy (FL 392).
  if (realm.topics_policy === undefined && realm.mandatory_topics === true) out.topics_policy = "disable_empty_topic";
  return out;
}

/** The realms.settings object of an imported organization. */
export function importedRealmSettings(realm: ZulipRealm, systemGroups: ReadonlyMap<string, number>, groupIds: ReadonlySet<number>): Record<string, unknown> {
  return { ...scalarSettings(realm), ...groupSettings(realm, systemGroups, groupIds) };
}

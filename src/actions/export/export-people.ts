/**
 * The organization and its people as Zulip's tables: the Realm row (settings under Zulip's
 * names, group settings as group ids, channel settings as channel ids), UserProfile rows (every
 * personal setting, defaults included; no password, no API key), Parley's system bots as
 * upstream's cross-realm bots (zerver_userprofile_crossrealm, which the importer turns back into
 * system bots), user groups with their members and subgroups, and what the organization defines:
 * domains, defaults for new users, linkifiers, playgrounds, custom emoji, profile fields.
 */
import { realmSettings } from "../../permissions/realm-settings.ts";
import { GROUP_PERMISSION_SETTINGS, groupSettingColumn } from "../../permissions/group-access.ts";
import { USER_SETTING_DEFAULTS, storedOverrides } from "../../model/user-settings.ts";
import {
  customProfileValues, groupMembers, groupSubgroups, presenceSequence, realmRows, realmUserDefaults, userPresences, userStatuses,
} from "../../store/export/organization-rows.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import type { RowSource } from "../../formats/zulip/json-writer.ts";
import type { ExportEnv } from "./export-env.ts";
import type { ExportScope } from "./export-scope.ts";

/** Zulip's cross-realm bots, which Parley keeps as the organization's system bots. */
const CROSS_REALM_LOCAL_PARTS = new Set(["notification-bot", "welcome-bot", "emailgateway"]);

/** Channel-valued settings: Parley stores `<name>_id` (-1: none), Zulip `<name>` (null: none). */
const CHANNEL_SETTINGS = ["new_stream_announcements_stream", "signup_announcements_stream", "zulip_update_announcements_stream", "moderation_request_channel"];

/** Whether the user is one of the system bots upstream keeps outside the organization. */
export function isCrossRealmBot(u: UserRow): boolean {
  return u.is_bot === 1 && u.bot_owner_id === null && CROSS_REALM_LOCAL_PARTS.has(u.delivery_email.split("@")[0]);
}

function realmTableRow(realm: RealmRow): object {
  const settings: Record<string, unknown> = { ...realmSettings(realm) };
  for (const key of CHANNEL_SETTINGS) {
    const value = settings[`${key}_id`];
    delete settings[`${key}_id`];
    settings[key] = typeof value === "number" && value >= 0 ? value : null;
  }
  return { ...settings, id: realm.id, string_id: realm.string_id, name: realm.name, description: realm.description, date_created: realm.date_created, deactivated: realm.deactivated === 1, uuid: realm.uuid };
}

function userTableRow(u: UserRow, scope: ExportScope): object {
  return {
    ...USER_SETTING_DEFAULTS,
    ...storedOverrides(u),
    id: u.id,
    realm: u.realm_id,
    email: u.delivery_email,
    delivery_email: u.delivery_email,
    full_name: u.full_name,
    role: u.role,
    is_active: u.is_active === 1,
    is_bot: u.is_bot === 1,
    bot_type: u.bot_type,
    bot_owner: u.bot_owner_id,
    date_joined: u.date_joined,
    last_login: u.last_login,
    timezone: u.timezone,
    avatar_source: u.avatar_source,
    avatar_version: u.avatar_version,
    is_billing_admin: u.is_billing_admin === 1,
    email_address_visibility: u.email_address_visibility,
    can_create_users: u.can_create_users === 1,
    long_term_idle: false,
    uuid: u.uuid,
    recipient: scope.personalRecipient.get(u.id) ?? null,
  };
}

/** The tables of the organization, its people and groups, for realm.json. */
export async function peopleTables(env: ExportEnv, scope: ExportScope, realm: RealmRow, users: readonly UserRow[]): Promise<Record<string, RowSource>> {
  const { db, realmId } = env;
  const groups = await realmRows(db, "user_groups", realmId);
  const defaults = await realmUserDefaults(db, realmId);
  const defaultsRow = defaults === null ? [] : [{ ...USER_SETTING_DEFAULTS, email_address_visibility: 1, ...JSON.parse(defaults), id: 1, realm: realmId }];
  let membershipId = 0;
  let subgroupId = 0;
  let rowId = 0;
  const sequence = await presenceSequence(db, realmId);
  return {
    zerver_realm: [realmTableRow(realm)],
    zerver_userprofile: users.filter((u) => !isCrossRealmBot(u)).map((u) => userTableRow(u, scope)),
    // date_joined is Parley's addition (upstream's importer reads id and email only).
    zerver_userprofile_crossrealm: users.filter(isCrossRealmBot).map((u) => ({ id: u.id, email: u.delivery_email, recipient_id: scope.personalRecipient.get(u.id) ?? null, date_joined: u.date_joined })),
    zerver_service: (await realmRows(db, "services", realmId)).map((s) => ({ id: s.id, name: "", user_profile: s.bot_user_id, base_url: s.base_url, token: s.token, interface: s.interface })),
    zerver_usergroup: groups.map((g) => ({ id: g.id, realm: realmId })),
    zerver_namedusergroup: groups.filter((g) => g.name !== null).map((g) => ({
      id: g.id,
      usergroup_ptr: g.id,
      realm_for_sharding: realmId,
      name: g.name,
      description: g.description,
      is_system_group: g.is_system_group === 1,
      deactivated: g.deactivated === 1,
      date_created: g.date_created,
      creator: g.creator_id,
      ...Object.fromEntries(GROUP_PERMISSION_SETTINGS.map((s) => [s, g[groupSettingColumn(s)]])),
    })),
    zerver_usergroupmembership: (await groupMembers(db, realmId)).map((m) => ({ id: ++membershipId, user_group: m.group_id, user_profile: m.user_id })),
    zerver_groupgroupmembership: (await groupSubgroups(db, realmId)).map((s) => ({ id: ++subgroupId, supergroup: s.supergroup_id, subgroup: s.subgroup_id })),
    zerver_realmdomain: (await realmRows(db, "realm_domains", realmId)).map((d) => ({ id: d.id, realm: realmId, domain: d.domain, allow_subdomains: d.allow_subdomains === 1 })),
    zerver_realmuserdefault: defaultsRow,
    zerver_realmfilter: (await realmRows(db, "linkifiers", realmId)).map((l) => ({ id: l.id, realm: realmId, pattern: l.pattern, url_template: l.url_template, order: l.order })),
    zerver_realmplayground: (await realmRows(db, "realm_playgrounds", realmId)).map((p) => ({ id: p.id, realm: realmId, name: p.name, pygments_language: p.pygments_language, url_template: p.url_template })),
    zerver_realmemoji: (await realmRows(db, "realm_emoji", realmId)).map((e) => ({ id: e.id, realm: realmId, name: e.name, file_name: e.file_name, author: e.author_id, deactivated: e.deactivated === 1, is_animated: e.is_animated === 1 })),
    zerver_customprofilefield: (await realmRows(db, "custom_profile_fields", realmId)).map((f) => ({
      id: f.id, realm: realmId, name: f.name, hint: f.hint, field_type: f.field_type, field_data: f.field_data, order: f.order,
      display_in_profile_summary: f.display_in_profile_summary === 1, required: f.required === 1, editable_by_user: f.editable_by_user === 1,
    })),
    zerver_customprofilefieldvalue: (await customProfileValues(db, realmId)).map((v) => ({ id: ++rowId, user_profile: v.user_id, field: v.field_id, value: v.value, rendered_value: v.rendered_value })),
    zerver_userstatus: (await userStatuses(db, realmId)).map((s) => ({
      id: s.user_id, user_profile: s.user_id, status_text: s.status_text, emoji_name: s.emoji_name, emoji_code: s.emoji_code, reaction_type: s.reaction_type, timestamp: s.timestamp,
    })),
    zerver_userpresence: (await userPresences(db, realmId)).map((p) => ({
      id: p.user_id, user_profile: p.user_id, realm: realmId, last_active_time: p.last_active_time, last_connected_time: p.last_connected_time, last_update_id: p.last_update_id,
    })),
    zerver_presencesequence: [{ id: realmId, realm: realmId, last_update_id: sequence }],
  };
}

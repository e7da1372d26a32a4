/**
 * The permission settings of user groups: normalizing and storing values, defaults of a new
 * group, removing anonymous setting groups nothing uses any more, and finding where a group is
 * used (the objections that keep it from being deactivated).
 */
import { JsonableError } from "../../errors.ts";
import { GROUP_SETTING_RULES, groupSettingColumn } from "../../permissions/group-access.ts";
import { newSettingColumns, presentGroupSetting, sameGroupSetting, storeGroupSetting, type GroupSettingValue } from "../../permissions/group-setting.ts";
import { REALM_GROUP_SETTINGS, realmSettings } from "../../permissions/realm-settings.ts";
import { SYSTEM_GROUP } from "../../model/roles.ts";
import { GROUP_PERMISSION_SETTINGS, type GroupPermissionSetting } from "../../permissions/group-access.ts";
import type { Db } from "../../store/schema/types.ts";
import type { RealmRow, UserGroupRow, UserRow } from "../../store/schema/database.ts";
import { deleteGroup, directSupergroupIds, groupsByIds, groupsWithSettingIn, streamsWithSettingIn, systemGroupsByName } from "../../store/groups/user-groups.ts";
import { STREAM_GROUP_SETTING_NAMES, settingColumn } from "../../permissions/stream-settings.ts";

/** An update of a setting: the new value, and optionally the value the client believes is current. */
export type GroupSettingChange = { new: GroupSettingValue; old?: GroupSettingValue };

/** Column name → group id, for the settings being written. */
type GroupSettingColumns = Partial<Record<`${GroupPermissionSetting}_id`, number>>;

async function nobodyGroupId(db: Db, realmId: number): Promise<number> {
  const nobody = (await systemGroupsByName(db, realmId)).get(SYSTEM_GROUP.nobody);
  if (!nobody) throw new Error(`realm ${realmId} lacks ${SYSTEM_GROUP.nobody}`);
  return nobody.id;
}

/** Zulip's canonical form of a value: one subgroup and no members is that group; nothing at all is role:nobody. */
function canonical(value: GroupSettingValue, nobodyId: number): GroupSettingValue {
  if (typeof value === "number" || value.direct_members.length > 0 || value.direct_subgroups.length > 1) return value;
  return value.direct_subgroups[0] ?? nobodyId;
}

/** Validates a value against the setting's rules and returns the group id to store. */
async function storeSetting(db: Db, realm: RealmRow, setting: GroupPermissionSetting, value: GroupSettingValue, nobodyId: number): Promise<number> {
  return storeGroupSetting(db, realm.id, canonical(value, nobodyId), { setting, forbiddenSystemGroups: GROUP_SETTING_RULES[setting].forbidden });
}

/** Group ids for every setting of a new group: the requested values, else the defaults. */
export async function newGroupSettingColumns(db: Db, realm: RealmRow, creator: UserRow, requested: Partial<Record<GroupPermissionSetting, GroupSettingValue>>): Promise<GroupSettingColumns> {
  const nobodyId = await nobodyGroupId(db, realm.id);
  const rules = { settings: GROUP_PERMISSION_SETTINGS, column: groupSettingColumn, defaultOf: (setting: GroupPermissionSetting) => GROUP_SETTING_RULES[setting].default };
  return newSettingColumns(db, realm.id, creator, requested, { ...rules, store: (setting, value) => storeSetting(db, realm, setting, value, nobodyId) });
}

/**
 * The columns to write for requested changes of a group's settings. Refuses an `old` that is not
 * the current value; leaves out settings whose new value equals the current one.
 */
export async function changedGroupSettingColumns(
  db: Db,
  realm: RealmRow,
  group: UserGroupRow,
  changes: Partial<Record<GroupPermissionSetting, GroupSettingChange>>,
): Promise<GroupSettingColumns> {
  const out: GroupSettingColumns = {};
  if (!GROUP_PERMISSION_SETTINGS.some((setting) => changes[setting])) return out;
  const nobodyId = await nobodyGroupId(db, realm.id);
  for (const setting of GROUP_PERMISSION_SETTINGS) {
    const change = changes[setting];
    if (!change) continue;
    const current = await presentGroupSetting(db, realm.id, group[groupSettingColumn(setting)] ?? nobodyId);
    if (change.old !== undefined && !sameGroupSetting(current, canonical(change.old, nobodyId))) {
      throw new JsonableError("'old' value does not match the expected value.");
    }
    if (sameGroupSetting(current, canonical(change.new, nobodyId))) continue;
    out[groupSettingColumn(setting)] = await storeSetting(db, realm, setting, change.new, nobodyId);
  }
  return out;
}

/**
 * Deletes the anonymous setting groups among `groupIds` that no group, channel or realm setting
 * uses any more (a replaced `{direct_members, direct_subgroups}` value), so none pile up.
 */
export async function dropUnusedAnonymousGroups(db: Db, realm: RealmRow, groupIds: number[]): Promise<void> {
  for (const group of await groupsByIds(db, realm.id, groupIds)) {
    if (group.name !== null) continue;
    const uses = await settingUses(db, realm, [group.id]);
    const asSubgroup = await directSupergroupIds(db, [group.id]);
    if (uses.groups.length === 0 && uses.streams.length === 0 && uses.realm.length === 0 && asSubgroup.length === 0) {
      await deleteGroup(db, realm.id, group.id);
    }
  }
}

/** Where groups hold settings: groups and channels (with the settings' names) and realm settings. */
async function settingUses(db: Db, realm: RealmRow, groupIds: number[]) {
  const held = (id: number | null) => id !== null && groupIds.includes(id);
  const groups = (await groupsWithSettingIn(db, realm.id, groupIds)).map((g) => ({
    group: g,
    settings: GROUP_PERMISSION_SETTINGS.filter((s) => held(g[groupSettingColumn(s)])),
  }));
  const columns = STREAM_GROUP_SETTING_NAMES.map(settingColumn);
  const streams = (await streamsWithSettingIn(db, realm.id, columns, groupIds)).map((stream) => ({
    stream,
    settings: STREAM_GROUP_SETTING_NAMES.filter((s) => held(stream[settingColumn(s)])),
  }));
  const values = realmSettings(realm);
  return { groups, streams, realm: REALM_GROUP_SETTINGS.filter((s) => held(values[s])) };
}

/**
 * Why a group cannot be deactivated (Zulip's objections): active groups it is a direct subgroup
 * of, and the channel, group and realm settings it holds, directly or as a subgroup of an
 * anonymous setting value.
 */
export async function deactivationObjections(db: Db, realm: RealmRow, groupId: number): Promise<Array<Record<string, unknown>>> {
  const supergroups = await groupsByIds(db, realm.id, await directSupergroupIds(db, [groupId]));
  const activeNamed = supergroups.filter((g) => g.name !== null && g.deactivated === 0).map((g) => g.id);
  const holders = [groupId, ...supergroups.filter((g) => g.name === null).map((g) => g.id)];
  const uses = await settingUses(db, realm, holders);
  const objections: Array<Record<string, unknown>> = [];
  if (activeNamed.length > 0) objections.push({ type: "subgroup", supergroup_ids: activeNamed });
  for (const { stream, settings } of uses.streams) objections.push({ type: "channel", channel_id: stream.id, settings });
  for (const { group, settings } of uses.groups) {
    if (group.name !== null && group.deactivated === 0) objections.push({ type: "user_group", group_id: group.id, settings });
  }
  if (uses.realm.length > 0) objections.push({ type: "realm", settings: uses.realm });
  return objections;
}

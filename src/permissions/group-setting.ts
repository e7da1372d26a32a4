/**
 * Group-setting values: who holds a permission. A value is the id of a named group, or an
 * anonymous set `{direct_members, direct_subgroups}`; both are stored as a group row (anonymous
 * ones with a null name) so that one recursive membership check serves every permission.
 */
import type { Db } from "../store/schema/types.ts";
import { addMembers, addSubgroups, directSubgroupIds, getGroup, insertGroup, systemGroupsByName } from "../store/groups/user-groups.ts";
import { activeDirectMemberIds } from "../store/groups/group-membership.ts";
import { usersByIds } from "../store/users/users.ts";
import { JsonableError } from "../errors.ts";

/** A setting value that lists its holders rather than naming a group. */
type AnonymousGroupValue = { direct_members: number[]; direct_subgroups: number[] };
/** A group-setting value on the wire: a named group's id, or an anonymous group. */
export type GroupSettingValue = number | AnonymousGroupValue;

/** The API form of the setting stored as `groupId`: an integer for named groups, else the object. */
export async function presentGroupSetting(db: Db, realmId: number, groupId: number): Promise<GroupSettingValue> {
  const group = await getGroup(db, realmId, groupId);
  if (!group) throw new Error(`group setting points at missing group ${groupId}`);
  if (group.name !== null) return group.id;
  return { direct_members: await activeDirectMemberIds(db, groupId), direct_subgroups: await directSubgroupIds(db, groupId) };
}

/** Whether two setting values name the same holders (order of ids does not matter). */
export function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const norm = (ids: number[]) => [...new Set(ids)].sort((x, y) => x - y).join(",");
  return norm(a.direct_members) === norm(b.direct_members) && norm(a.direct_subgroups) === norm(b.direct_subgroups);
}

/** Rules a setting imposes on the groups it may name. */
type SettingRules = { setting: string; forbiddenSystemGroups?: readonly string[] };

/**
 * Validates a value and returns the group id to store: a named group's own id, or a new
 * anonymous group holding the given members and subgroups. Refuses unknown users and groups,
 * deactivated groups and the setting's forbidden system groups.
 */
export async function storeGroupSetting(db: Db, realmId: number, value: GroupSettingValue, rules: SettingRules): Promise<number> {
  if (typeof value === "number") {
    await checkUsableGroup(db, realmId, value, rules);
    return value;
  }
  for (const sub of value.direct_subgroups) await checkUsableGroup(db, realmId, sub, rules);
  const users = await usersByIds(db, realmId, value.direct_members);
  for (const id of value.direct_members) {
    const user = users.find((u) => u.id === id);
    if (!user || user.is_active !== 1) throw new JsonableError(`Invalid user ID: ${id}`);
  }
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0];
  const created = await insertGroup(db, { realm_id: realmId, name: null, description: "", is_system_group: 0, deactivated: 0, date_created: null, creator_id: null });
  await addMembers(db, created.id, [...new Set(value.direct_members)]);
  await addSubgroups(db, created.id, [...new Set(value.direct_subgroups)]);
  return created.id;
}

async function checkUsableGroup(db: Db, realmId: number, groupId: number, rules: SettingRules): Promise<void> {
  const group = await getGroup(db, realmId, groupId);
  if (!group || group.name === null) throw new JsonableError(`Invalid user group ID: ${groupId}`);
  if (group.deactivated === 1) throw new JsonableError("User group is deactivated.");
  if (rules.forbiddenSystemGroups?.includes(group.name)) {
    throw new JsonableError(`'${rules.setting}' setting cannot be set to '${group.name}' group.`);
  }
}

/**
 * The group id of every permission setting of a new channel or group, under the setting's
 * column: the requested value, else the setting's default. `defaultOf` names a setting's default
 * (a system group's name, or "creator": a group of the creator alone); `store` validates and
 * stores a value with the channel's or group's own rules.
 */
export async function newSettingColumns<S extends string, C extends string>(
  db: Db,
  realmId: number,
  creator: { id: number },
  requested: Partial<Record<S, GroupSettingValue>>,
  rules: { settings: readonly S[]; column(setting: S): C; defaultOf(setting: S): string; store(setting: S, value: GroupSettingValue): Promise<number> },
): Promise<Partial<Record<C, number>>> {
  const system = await systemGroupsByName(db, realmId);
  const out: Partial<Record<C, number>> = {};
  for (const setting of rules.settings) {
    const value = requested[setting];
    const fallback = rules.defaultOf(setting);
    let id: number | undefined;
    if (value !== undefined) id = await rules.store(setting, value);
    else if (fallback === "creator") id = await rules.store(setting, { direct_members: [creator.id], direct_subgroups: [] });
    else id = system.get(fallback)?.id;
    if (id === undefined) throw new Error(`realm ${realmId} lacks system group ${fallback}`);
    out[rules.column(setting)] = id;
  }
  return out;
}

/**
 * Group-setting values: who holds a permission. A value is the id of a named group, or an
 * anonymous set `{direct_members, direct_subgroups}`; both are stored as a group row (anonymous
 * ones with a null name) so that one recursive membership check serves every permission.
 */
import { sql } from "kysely";
import type { Db } from "../store/types.ts";
import { prepared } from "../store/prepared.ts";
import { addMembers, addSubgroups, directMemberIds, directSubgroupIds, getGroup, withSubgroupsOf } from "../store/user-groups.ts";
import { JsonableError } from "../errors.ts";
import { cachedRead } from "../store/read-cache.ts";

export type AnonymousGroupValue = { direct_members: number[]; direct_subgroups: number[] };
export type GroupSettingValue = number | AnonymousGroupValue;

const userInGroupQuery = prepared(
  (_db, p: { groupId: number; userId: number }) => sql<{ found: number }>`
    ${withSubgroupsOf(sql`select cast(${p.groupId} as integer)`)}
    select 1 as found from user_group_members m join users u on u.id = m.user_id
    where m.user_id = ${p.userId} and u.is_active = 1 and m.group_id in (select id from sub)
    limit 1`,
);

/** Whether a user is an active member of a group, directly or through nested subgroups. */
export const isUserInGroup = cachedRead(
  "user in group",
  ["users", "user_group_members", "user_group_subgroups"],
  (groupId: number, userId: number) => `${groupId}/${userId}`,
  (found: boolean) => found,
  async (db, groupId, userId) => (await userInGroupQuery(db, { groupId, userId })).length > 0,
);

/** Active members of a group, directly or through nested subgroups, ascending. */
export async function effectiveMemberIds(db: Db, groupId: number): Promise<number[]> {
  const rows = await sql<{ user_id: number }>`
    ${withSubgroupsOf(sql`select cast(${groupId} as integer)`)}
    select distinct m.user_id as user_id from user_group_members m join users u on u.id = m.user_id
    where u.is_active = 1 and m.group_id in (select id from sub)
    order by m.user_id`.execute(db);
  return rows.rows.map((r) => Number(r.user_id));
}

/** The API form of the setting stored as `groupId`: an integer for named groups, else the object. */
export async function presentGroupSetting(db: Db, realmId: number, groupId: number): Promise<GroupSettingValue> {
  const group = await getGroup(db, realmId, groupId);
  if (!group) throw new Error(`group setting points at missing group ${groupId}`);
  if (group.name !== null) return group.id;
  const members = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select("user_group_members.user_id")
    .where("user_group_members.group_id", "=", groupId)
    .where("users.is_active", "=", 1)
    .orderBy("user_group_members.user_id")
    .execute();
  return { direct_members: members.map((m) => m.user_id), direct_subgroups: await directSubgroupIds(db, groupId) };
}

/** Whether two setting values name the same holders (order of ids does not matter). */
export function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const norm = (ids: number[]) => [...new Set(ids)].sort((x, y) => x - y).join(",");
  return norm(a.direct_members) === norm(b.direct_members) && norm(a.direct_subgroups) === norm(b.direct_subgroups);
}

/** Rules a setting imposes on the groups it may name. */
export type SettingRules = { setting: string; forbiddenSystemGroups?: readonly string[] };

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
  const users = value.direct_members.length === 0 ? [] : await db
    .selectFrom("users").select(["id", "is_active"]).where("realm_id", "=", realmId).where("id", "in", value.direct_members).execute();
  for (const id of value.direct_members) {
    const user = users.find((u) => u.id === id);
    if (!user || user.is_active !== 1) throw new JsonableError(`Invalid user ID: ${id}`);
  }
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0];
  const created = await db
    .insertInto("user_groups")
    .values({ realm_id: realmId, name: null, description: "", is_system_group: 0, deactivated: 0, date_created: null, creator_id: null })
    .returning("id")
    .executeTakeFirstOrThrow();
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

/** Direct members of a group (active ones), for presenting a group. */
export async function activeDirectMemberIds(db: Db, groupId: number): Promise<number[]> {
  const ids = await directMemberIds(db, groupId);
  if (ids.length === 0) return [];
  const active = await db.selectFrom("users").select("id").where("id", "in", ids).where("is_active", "=", 1).orderBy("id").execute();
  return active.map((u) => u.id);
}

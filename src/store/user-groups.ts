/** Queries on user groups, their direct members and direct subgroups. */
import type { Db } from "./db.ts";
import type { UserGroupRow } from "./schema.ts";

/** A group by id within a realm, or undefined. */
export function getGroup(db: Db, realmId: number, groupId: number): Promise<UserGroupRow | undefined> {
  return db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("id", "=", groupId).executeTakeFirst();
}

/** A named group (system or user-defined) by exact name. */
export function getGroupByName(db: Db, realmId: number, name: string): Promise<UserGroupRow | undefined> {
  return db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirst();
}

/** Every system group of a realm, keyed by name. */
export async function systemGroupsByName(db: Db, realmId: number): Promise<Map<string, UserGroupRow>> {
  const rows = await db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("is_system_group", "=", 1).execute();
  return new Map(rows.map((r) => [r.name ?? "", r]));
}

/** The realm's whole membership graph: active direct members and direct subgroups of every group, ascending. */
export async function loadGroupGraph(db: Db, realmId: number): Promise<GroupGraph> {
  const members = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select(["user_group_members.group_id", "user_group_members.user_id"])
    .where("users.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .orderBy("user_group_members.user_id")
    .execute();
  const subgroups = await db
    .selectFrom("user_group_subgroups")
    .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.supergroup_id")
    .select(["user_group_subgroups.supergroup_id", "user_group_subgroups.subgroup_id"])
    .where("user_groups.realm_id", "=", realmId)
    .orderBy("user_group_subgroups.subgroup_id")
    .execute();
  const graph: GroupGraph = { members: new Map(), subgroups: new Map() };
  for (const m of members) push(graph.members, m.group_id, m.user_id);
  for (const s of subgroups) push(graph.subgroups, s.supergroup_id, s.subgroup_id);
  return graph;
}

/** Direct, active members and direct subgroups of each group. */
export type GroupGraph = { members: Map<number, number[]>; subgroups: Map<number, number[]> };

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Direct member ids of a group (deactivated users included; callers filter). */
export async function directMemberIds(db: Db, groupId: number): Promise<number[]> {
  const rows = await db.selectFrom("user_group_members").select("user_id").where("group_id", "=", groupId).orderBy("user_id").execute();
  return rows.map((r) => r.user_id);
}

/** Direct subgroup ids of a group. */
export async function directSubgroupIds(db: Db, groupId: number): Promise<number[]> {
  const rows = await db.selectFrom("user_group_subgroups").select("subgroup_id").where("supergroup_id", "=", groupId).orderBy("subgroup_id").execute();
  return rows.map((r) => r.subgroup_id);
}

/** Adds direct members, ignoring ones already present. */
export async function addMembers(db: Db, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .insertInto("user_group_members")
    .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
    .onConflict((oc) => oc.columns(["group_id", "user_id"]).doNothing())
    .execute();
}

/** Removes direct members. */
export async function removeMembers(db: Db, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom("user_group_members").where("group_id", "=", groupId).where("user_id", "in", userIds).execute();
}

/** Adds direct subgroups, ignoring ones already present. */
export async function addSubgroups(db: Db, groupId: number, subgroupIds: number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db
    .insertInto("user_group_subgroups")
    .values(subgroupIds.map((subgroup_id) => ({ supergroup_id: groupId, subgroup_id })))
    .onConflict((oc) => oc.columns(["supergroup_id", "subgroup_id"]).doNothing())
    .execute();
}

/** The register snapshot's `realm_user_groups`, and the bulk group loader other parts share. */
import type { Db } from "../store/types.ts";
import { cachedRead } from "../store/read-cache.ts";
import { GROUP_SETTING_COLUMNS, groupsByIds, loadGroupGraph } from "../store/user-groups.ts";
import { presentUserGroup, type ApiUserGroup, type GroupIndex } from "../present/user-groups.ts";
import { SYSTEM_GROUP } from "../store/roles.ts";
import type { UserGroupRow } from "../store/schema.ts";
import type { StateProvider } from "./provider.ts";

function copyIndex(index: GroupIndex): GroupIndex {
  const lists = (map: Map<number, number[]>) => new Map([...map].map(([id, list]) => [id, list.slice()]));
  return { groups: new Map([...index.groups].map(([id, row]) => [id, { ...row }])), members: lists(index.members), subgroups: lists(index.subgroups) };
}

/**
 * Every group of a realm with active direct members and direct subgroups, in three queries run
 * together; kept by the read cache while groups, memberships and users are unwritten (GET
 * /user_groups over 2,000 groups spent most of its time in these queries).
 */
export const loadGroupIndex = cachedRead(
  "group index",
  ["user_groups", "user_group_members", "user_group_subgroups", "users"],
  (realmId: number) => String(realmId),
  copyIndex,
  async (db, realmId): Promise<GroupIndex> => {
    const [groups, graph] = await Promise.all([
      db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
      loadGroupGraph(db, realmId),
    ]);
    return { groups: new Map(groups.map((g) => [g.id, g])), ...graph };
  },
);

/**
 * Just enough of the index to present the named groups `groupIds`: them, the groups holding
 * their settings and role:nobody, with active direct members and direct subgroups.
 */
export async function loadGroupIndexFor(db: Db, realmId: number, groupIds: number[]): Promise<GroupIndex> {
  const named = await groupsByIds(db, realmId, groupIds);
  const settingIds = named.flatMap((g) => GROUP_SETTING_COLUMNS.map((col) => g[col])).filter((id): id is number => id !== null);
  const nobody = await db.selectFrom("user_groups").select("id").where("realm_id", "=", realmId).where("name", "=", SYSTEM_GROUP.nobody).execute();
  const ids = [...new Set([...groupIds, ...settingIds, ...nobody.map((g) => g.id)])];
  const groups = await groupsByIds(db, realmId, ids);
  const index: GroupIndex = { groups: new Map(groups.map((g) => [g.id, g])), members: new Map(), subgroups: new Map() };
  const members = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select(["user_group_members.group_id", "user_group_members.user_id"])
    .where("user_group_members.group_id", "in", ids)
    .where("users.is_active", "=", 1)
    .orderBy("user_group_members.user_id")
    .execute();
  const subgroups = await db
    .selectFrom("user_group_subgroups")
    .select(["supergroup_id", "subgroup_id"])
    .where("supergroup_id", "in", ids)
    .orderBy("subgroup_id")
    .execute();
  for (const m of members) listIn(index.members, m.group_id).push(m.user_id);
  for (const s of subgroups) listIn(index.subgroups, s.supergroup_id).push(s.subgroup_id);
  return index;
}

function listIn(map: Map<number, number[]>, key: number): number[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** One named group in its API shape. */
export async function presentGroupById(db: Db, realmId: number, groupId: number): Promise<ApiUserGroup> {
  const index = await loadGroupIndexFor(db, realmId, [groupId]);
  const group = index.groups.get(groupId);
  if (!group || !isNamed(group)) throw new Error(`no named group ${groupId}`);
  return presentUserGroup(group, index);
}

function isNamed(group: UserGroupRow): group is UserGroupRow & { name: string } {
  return group.name !== null;
}

/**
 * The realm's named groups by id. Deactivated groups only for clients declaring
 * include_deactivated_groups (FL 294).
 */
export function userGroupsSnapshot(index: GroupIndex, includeDeactivated: boolean): ApiUserGroup[] {
  return [...index.groups.values()]
    .filter(isNamed)
    .filter((g) => includeDeactivated || g.deactivated !== 1)
    .map((g) => presentUserGroup(g, index));
}

/** realm_user_groups, when the client wants it. */
export const userGroupsState: StateProvider = {
  async fetch(ctx, opts, want) {
    if (!want("realm_user_groups")) return {};
    const index = await loadGroupIndex(ctx.db, ctx.realm.id);
    return { realm_user_groups: userGroupsSnapshot(index, opts.capabilities.include_deactivated_groups) };
  },
};

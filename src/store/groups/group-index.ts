/** A realm's groups loaded together with their active direct members and direct subgroups. */
import type { Db } from "../schema/types.ts";
import { cachedRead } from "../engine/read-cache.ts";
import { SYSTEM_GROUP } from "../../model/roles.ts";
import type { UserGroupRow } from "../schema/database.ts";
import { GROUP_SETTING_COLUMNS, getGroupByName, groupsByIds, loadGroupGraph } from "./user-groups.ts";

/** A realm's groups (anonymous setting groups included) with active direct members and direct subgroups. */
export type GroupIndex = {
  groups: Map<number, UserGroupRow>;
  /** Active direct members of each group, ascending. */
  members: Map<number, number[]>;
  /** Direct subgroups of each group, ascending. */
  subgroups: Map<number, number[]>;
};

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
  const nobody = await getGroupByName(db, realmId, SYSTEM_GROUP.nobody);
  const ids = [...new Set([...groupIds, ...settingIds, ...(nobody ? [nobody.id] : [])])];
  const groups = await groupsByIds(db, realmId, ids);
  return { groups: new Map(groups.map((g) => [g.id, g])), ...(await loadGroupGraph(db, realmId, ids)) };
}

/** Each id of `ids` once, ascending. */
function uniqueSorted(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * The groups that settings name (`groupIds`), enough to present the settings: members and
 * subgroups only of the anonymous ones (a named group is shown by its id). Cached like the whole
 * index: every register presents the channels' settings, and they name the same few groups.
 */
export const settingGroupIndex = cachedRead(
  "setting group index",
  ["user_groups", "user_group_members", "user_group_subgroups", "users"],
  (realmId: number, groupIds: readonly number[]) => `${realmId}/${uniqueSorted(groupIds).join(",")}`,
  copyIndex,
  async (db, realmId, groupIds): Promise<GroupIndex> => {
    const groups = await groupsByIds(db, realmId, uniqueSorted(groupIds));
    const anonymous = groups.filter((g) => g.name === null).map((g) => g.id);
    return { groups: new Map(groups.map((g) => [g.id, g])), ...(await loadGroupGraph(db, realmId, anonymous)) };
  },
);

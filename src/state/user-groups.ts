/** The register snapshot's `realm_user_groups`, and the bulk group loader other parts share. */
import type { Db } from "../store/db.ts";
import { presentUserGroup, type ApiUserGroup, type GroupIndex } from "../present/user-groups.ts";
import type { UserGroupRow } from "../store/schema.ts";
import type { StateProvider } from "./provider.ts";

function append(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Every group of a realm with active direct members and direct subgroups, in three queries. */
export async function loadGroupIndex(db: Db, realmId: number): Promise<GroupIndex> {
  const groups = await db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
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
  const index: GroupIndex = { groups: new Map(groups.map((g) => [g.id, g])), members: new Map(), subgroups: new Map() };
  for (const m of members) append(index.members, m.group_id, m.user_id);
  for (const s of subgroups) append(index.subgroups, s.supergroup_id, s.subgroup_id);
  return index;
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

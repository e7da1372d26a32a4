/** The register snapshot's `realm_user_groups`, and named groups presented from the loaded group index. */
import type { Db } from "../store/schema/types.ts";
import { loadGroupIndex, loadGroupIndexFor, type GroupIndex } from "../store/groups/group-index.ts";
import { presentUserGroup, type ApiUserGroup } from "../present/user-groups.ts";
import type { UserGroupRow } from "../store/schema/database.ts";
import type { StateProvider } from "./provider.ts";

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

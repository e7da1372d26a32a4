/** The register snapshot's `realm_user_groups`, and the bulk group loader other parts share. */
import type { Db } from "../store/db.ts";
import { loadGroupGraph } from "../store/user-groups.ts";
import { presentUserGroup, type ApiUserGroup, type GroupIndex } from "../present/user-groups.ts";
import type { UserGroupRow } from "../store/schema.ts";
import type { StateProvider } from "./provider.ts";

/** Every group of a realm with active direct members and direct subgroups, in three queries. */
export async function loadGroupIndex(db: Db, realmId: number): Promise<GroupIndex> {
  const groups = await db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
  const graph = await loadGroupGraph(db, realmId);
  return { groups: new Map(groups.map((g) => [g.id, g])), ...graph };
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

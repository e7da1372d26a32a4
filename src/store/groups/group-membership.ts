/** Who belongs to a group: direct members, and members through nested subgroups. */
import { sql } from "kysely";
import type { Db } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { cachedRead } from "../engine/read-cache.ts";
import { ROLE } from "../../model/roles.ts";
import { withSubgroupsOf } from "./user-groups.ts";

const userInGroupQuery = prepared(
  "userInGroup",
  (_db, param: Placeholders<{ groupId: number; userId: number }>) => sql<{ found: number }>`
    ${withSubgroupsOf(sql`select cast(${param("groupId")} as integer)`)}
    select 1 as found from user_group_members m join users u on u.id = m.user_id
    where m.user_id = ${param("userId")} and u.is_active = 1 and m.group_id in (select id from sub)
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

/**
 * The realm's active guests who are not in a group, directly or through nested subgroups (those a
 * setting such as can_access_all_users_group leaves out). Kept while users and memberships are
 * unwritten, as every message sent asks; shared by every caller (not to change).
 */
export const guestIdsOutsideGroup = cachedRead(
  "guests outside group",
  ["users", "user_group_members", "user_group_subgroups"],
  (realmId: number, groupId: number) => `${realmId}/${groupId}`,
  (ids: ReadonlySet<number>) => ids,
  async (db, realmId, groupId): Promise<ReadonlySet<number>> => {
    const rows = await sql<{ id: number }>`
      ${withSubgroupsOf(sql`select cast(${groupId} as integer)`)}
      select u.id as id from users u
      where u.realm_id = ${realmId} and u.role = ${ROLE.guest} and u.is_active = 1
        and not exists (select 1 from user_group_members m where m.user_id = u.id and m.group_id in (select id from sub))`.execute(db);
    return new Set(rows.rows.map((r) => Number(r.id)));
  },
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

/** Direct members of a group (active ones), ascending. */
export async function activeDirectMemberIds(db: Db, groupId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select("user_group_members.user_id")
    .where("user_group_members.group_id", "=", groupId)
    .where("users.is_active", "=", 1)
    .orderBy("user_group_members.user_id")
    .execute();
  return rows.map((r) => r.user_id);
}

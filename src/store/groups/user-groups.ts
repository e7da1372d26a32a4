/** Queries on user groups, their direct members and subgroups, and the groups and channels whose settings they hold. */
import { sql, type Insertable, type RawBuilder, type Updateable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { StreamRow, StreamTable, UserGroupRow, UserGroupTable } from "../schema/database.ts";
import { collectChunks, idChunks, valueChunks } from "../engine/chunks.ts";
import { pushTo } from "../../collections.ts";

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

/**
 * A realm's membership graph: the active direct members and the direct subgroups of each group,
 * ascending; of every group of the realm, or only of the groups `groupIds` (read in chunks: each
 * group's rows come whole from one chunk, so each list stays ascending).
 */
export async function loadGroupGraph(db: Db, realmId: number, groupIds?: readonly number[]): Promise<GroupGraph> {
  const membersQuery = db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select(["user_group_members.group_id", "user_group_members.user_id"])
    .where("users.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .orderBy("user_group_members.user_id");
  const subgroupsQuery = db
    .selectFrom("user_group_subgroups")
    .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.supergroup_id")
    .select(["user_group_subgroups.supergroup_id", "user_group_subgroups.subgroup_id"])
    .where("user_groups.realm_id", "=", realmId)
    .orderBy("user_group_subgroups.subgroup_id");
  const chunks = groupIds === undefined ? null : idChunks(groupIds);
  const [members, subgroups] = await Promise.all([
    chunks === null ? membersQuery.execute() : collectChunks(chunks, (chunk) => membersQuery.where("user_group_members.group_id", "in", chunk).execute()),
    chunks === null ? subgroupsQuery.execute() : collectChunks(chunks, (chunk) => subgroupsQuery.where("user_group_subgroups.supergroup_id", "in", chunk).execute()),
  ]);
  const graph: GroupGraph = { members: new Map(), subgroups: new Map() };
  for (const m of members) pushTo(graph.members, m.group_id, m.user_id);
  for (const s of subgroups) pushTo(graph.subgroups, s.supergroup_id, s.subgroup_id);
  return graph;
}

/** Direct, active members and direct subgroups of each group. */
type GroupGraph = { members: Map<number, number[]>; subgroups: Map<number, number[]> };

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

/**
 * Adds direct members, skipping ones already present (a concurrent request may have just added
 * them); returns the ids this call added.
 */
export async function addMembers(db: Db, groupId: number, userIds: number[]): Promise<number[]> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db
      .insertInto("user_group_members")
      .values(chunk.map((user_id) => ({ group_id: groupId, user_id })))
      .onConflict((oc) => oc.columns(["group_id", "user_id"]).doNothing())
      .returning("user_id")
      .execute(),
  );
  return rows.map((r) => r.user_id);
}

/** Removes direct members; returns the ids this call removed. */
export async function removeMembers(db: Db, groupId: number, userIds: number[]): Promise<number[]> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db.deleteFrom("user_group_members").where("group_id", "=", groupId).where("user_id", "in", chunk).returning("user_id").execute(),
  );
  return rows.map((r) => r.user_id);
}

/** Adds direct subgroups, skipping ones already present; returns the ids this call added. */
export async function addSubgroups(db: Db, groupId: number, subgroupIds: number[]): Promise<number[]> {
  const rows = await collectChunks(idChunks(subgroupIds), (chunk) =>
    db
      .insertInto("user_group_subgroups")
      .values(chunk.map((subgroup_id) => ({ supergroup_id: groupId, subgroup_id })))
      .onConflict((oc) => oc.columns(["supergroup_id", "subgroup_id"]).doNothing())
      .returning("subgroup_id")
      .execute(),
  );
  return rows.map((r) => r.subgroup_id);
}

/** Removes direct subgroups; returns the ids this call removed. */
export async function removeSubgroups(db: Db, groupId: number, subgroupIds: number[]): Promise<number[]> {
  const rows = await collectChunks(idChunks(subgroupIds), (chunk) =>
    db.deleteFrom("user_group_subgroups").where("supergroup_id", "=", groupId).where("subgroup_id", "in", chunk).returning("subgroup_id").execute(),
  );
  return rows.map((r) => r.subgroup_id);
}

/** A named group whose name matches case-insensitively (names are unique that way). */
export function getGroupByNameInsensitive(db: Db, realmId: number, name: string): Promise<UserGroupRow | undefined> {
  return db
    .selectFrom("user_groups")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where((eb) => eb(eb.fn("lower", ["name"]), "=", name.toLowerCase()))
    .executeTakeFirst();
}

/** Groups of a realm by id (named and anonymous). */
export function groupsByIds(db: Db, realmId: number, ids: number[]): Promise<UserGroupRow[]> {
  return collectChunks(idChunks(ids), (chunk) => db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("id", "in", chunk).orderBy("id").execute());
}

/** What rendering needs of a group a message mentions by name. */
type MentionableGroup = Pick<UserGroupRow, "id" | "name" | "deactivated" | "can_mention_group_id">;

/** Groups of a realm with any of the given exact names. */
export function groupsByNames(db: Db, realmId: number, names: string[]): Promise<MentionableGroup[]> {
  return collectChunks(valueChunks(names), (chunk) =>
    db.selectFrom("user_groups").select(["id", "name", "deactivated", "can_mention_group_id"]).where("realm_id", "=", realmId).where("name", "in", chunk).execute(),
  );
}

/** Inserts a group row and returns it. */
export function insertGroup(db: Db, values: Insertable<UserGroupTable>): Promise<UserGroupRow> {
  return db.insertInto("user_groups").values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Inserts a named group and returns it; undefined when the realm already has a group of that
 * name, case-insensitively (a concurrent request may have created it after the caller looked).
 */
export function insertNamedGroup(db: Db, values: Insertable<UserGroupTable> & { name: string }): Promise<UserGroupRow | undefined> {
  return (
    db
      .insertInto("user_groups")
      .values(values)
      // The target names the columns of the unique index user_groups_realm_name.
      .onConflict((oc) => oc.expression(sql`realm_id, lower(name)`).doNothing())
      .returningAll()
      .executeTakeFirst()
  );
}

/** Changes a group's columns and returns the new row. */
export function updateGroup(db: Db, realmId: number, groupId: number, patch: Updateable<UserGroupTable>): Promise<UserGroupRow> {
  return db.updateTable("user_groups").set(patch).where("realm_id", "=", realmId).where("id", "=", groupId).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a group row with its memberships (only for anonymous groups nothing refers to). */
export async function deleteGroup(db: Db, realmId: number, groupId: number): Promise<void> {
  await db.deleteFrom("user_group_members").where("group_id", "=", groupId).execute();
  await db.deleteFrom("user_group_subgroups").where("supergroup_id", "=", groupId).execute();
  await db.deleteFrom("user_groups").where("realm_id", "=", realmId).where("id", "=", groupId).execute();
}

/** Ids of the groups that have any of `groupIds` as a direct subgroup. */
export async function directSupergroupIds(db: Db, groupIds: number[]): Promise<number[]> {
  const rows = await collectChunks(idChunks(groupIds), (chunk) =>
    db.selectFrom("user_group_subgroups").select("supergroup_id").distinct().where("subgroup_id", "in", chunk).execute(),
  );
  return sortedDistinct(rows.map((r) => r.supergroup_id));
}

/**
 * The common table expression `sub(id)`: the groups `seed` selects and every group nested below
 * them. Each level is joined on a range (`between x and x`), not `=`: PostgreSQL cannot hash or
 * merge a range, so it looks each group's subgroups up in the primary-key index instead of
 * scanning every subgroup edge of the database once per level (2 ms for 2,000 groups nested 10
 * deep, against 0.1 ms). SQLite uses the index either way.
 */
export function withSubgroupsOf(seed: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`with recursive sub(id) as (
      ${seed}
      union
      select s.subgroup_id from user_group_subgroups s join sub on s.supergroup_id between sub.id and sub.id
    )`;
}

/** `groupIds` and every group nested below them, ascending. */
export async function recursiveSubgroupIds(db: Db, groupIds: number[]): Promise<number[]> {
  const rows = await collectChunks(idChunks(groupIds), async (chunk) => {
    const found = await sql<{ id: number }>`
      ${withSubgroupsOf(sql`select id from user_groups where id in (${sql.join(chunk)})`)}
      select id from sub`.execute(db);
    return found.rows;
  });
  return sortedDistinct(rows.map((r) => Number(r.id)));
}

/** The user-group permission columns. */
export const GROUP_SETTING_COLUMNS = [
  "can_add_members_group_id",
  "can_join_group_id",
  "can_leave_group_id",
  "can_manage_group_id",
  "can_mention_group_id",
  "can_remove_members_group_id",
] as const;

/** Groups of a realm with any permission setting held by one of `groupIds`. */
export function groupsWithSettingIn(db: Db, realmId: number, groupIds: number[]): Promise<UserGroupRow[]> {
  return distinctRowsById(
    collectChunks(idChunks(groupIds), (chunk) =>
      db
        .selectFrom("user_groups")
        .selectAll()
        .where("realm_id", "=", realmId)
        .where((eb) => eb.or(GROUP_SETTING_COLUMNS.map((col) => eb(col, "in", chunk))))
        .execute(),
    ),
  );
}

/** A channel's permission-setting column. */
export type StreamSettingColumn = Extract<keyof StreamTable, `can_${string}_group_id`>;

/** Unarchived channels of a realm with any of `columns` held by one of `groupIds`. */
export function streamsWithSettingIn(db: Db, realmId: number, columns: readonly StreamSettingColumn[], groupIds: number[]): Promise<StreamRow[]> {
  if (columns.length === 0) return Promise.resolve([]);
  return distinctRowsById(
    collectChunks(idChunks(groupIds), (chunk) =>
      db
        .selectFrom("streams")
        .selectAll()
        .where("realm_id", "=", realmId)
        .where("is_archived", "=", 0)
        .where((eb) => eb.or(columns.map((col) => eb(col, "in", chunk))))
        .execute(),
    ),
  );
}

/** Distinct numbers, ascending. */
function sortedDistinct(ids: number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** The rows, each id once, by id (a row may match several chunks of an `or` of lists). */
async function distinctRowsById<R extends { id: number }>(rows: Promise<R[]>): Promise<R[]> {
  return [...new Map((await rows).map((r) => [r.id, r])).values()].sort((a, b) => a.id - b.id);
}

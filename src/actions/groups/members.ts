/**
 * A user group's membership: adding and removing members and subgroups (each under its own
 * permission setting), and reading members and subgroups.
 */
import { JsonableError } from "../../errors.ts";
import { userGroupMembersEvent, userGroupSubgroupsEvent } from "../../events/kinds/user-groups.ts";
import { accessGroupForUpdate, checkMemberOrAdmin, getNamedGroup } from "../../permissions/group-access.ts";
import { activeDirectMemberIds, effectiveMemberIds, isUserInGroup } from "../../store/groups/group-membership.ts";
import type { GroupPermissionSetting } from "../../permissions/group-access.ts";
import type { Db } from "../../store/schema/types.ts";
import type { UserGroupRow, UserRow } from "../../store/schema/database.ts";
import {
  addMembers,
  addSubgroups,
  directSubgroupIds,
  groupsByIds,
  recursiveSubgroupIds,
  removeMembers,
  removeSubgroups,
} from "../../store/groups/user-groups.ts";
import { activeUserIds, usersByIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import { accessUserById } from "../../permissions/user-access.ts";

/** The realm's active users with these ids; an unknown or deactivated id is refused. */
export async function activeUsersByIds(db: Db, realmId: number, ids: number[]): Promise<UserRow[]> {
  const users = await usersByIds(db, realmId, ids);
  const active = new Set(users.filter((u) => u.is_active === 1).map((u) => u.id));
  const invalid = ids.find((id) => !active.has(id));
  if (invalid !== undefined) throw new JsonableError(`Invalid user ID: ${invalid}`);
  return users;
}

/** Checks groups may become subgroups: named groups of the realm that are not deactivated. */
export async function checkSubgroupCandidates(db: Db, realmId: number, ids: number[]): Promise<void> {
  const groups = new Map((await groupsByIds(db, realmId, ids)).filter((g) => g.name !== null).map((g) => [g.id, g]));
  for (const id of ids) {
    const group = groups.get(id);
    if (!group) throw new JsonableError(`Invalid user group ID: ${id}`);
    if (group.deactivated === 1) throw new JsonableError("User group is deactivated.");
  }
}

type Step = { tx: Db; ctx: AuthedCtx; groupId: number; emit: Emit; everyone: number[] };

/**
 * The group, for a change the caller makes to their own membership (`selfSetting`: joining or
 * leaving) or to others' (`othersSetting`); a caller acting on themselves may use either.
 */
async function accessForMembership(s: Step, self: boolean, selfSetting: GroupPermissionSetting, othersSetting: GroupPermissionSetting): Promise<UserGroupRow> {
  const access = (setting: GroupPermissionSetting) => accessGroupForUpdate(s.tx, s.ctx.realm, s.ctx.actor, s.groupId, setting, { allowDeactivated: true });
  if (self) {
    try {
      return await access(selfSetting);
    } catch (error) {
      if (!(error instanceof JsonableError)) throw error;
    }
  }
  return access(othersSetting);
}

const unique = (ids: number[]) => [...new Set(ids)];

/**
 * The first of `wanted` that a write left out (`done`: the ids it changed): a concurrent request
 * made that change between the checks and the write, so this request fails as if it had come after.
 */
function leftOut(wanted: number[], done: number[]): number | undefined {
  const changed = new Set(done);
  return wanted.find((id) => !changed.has(id));
}

async function addMembersStep(s: Step, ids: number[]): Promise<void> {
  const self = ids.length === 1 && ids[0] === s.ctx.actor.id;
  const group = await accessForMembership(s, self, "can_join_group", "can_add_members_group");
  await activeUsersByIds(s.tx, s.ctx.realm.id, ids);
  const existing = new Set(await activeDirectMemberIds(s.tx, group.id));
  let already = ids.find((id) => existing.has(id));
  if (already === undefined) already = leftOut(unique(ids), await addMembers(s.tx, group.id, unique(ids)));
  if (already !== undefined) throw new JsonableError(`User ${already} is already a member of this group`);
  s.emit(userGroupMembersEvent("add_members", group.id, unique(ids), group.deactivated === 1), s.everyone);
}

async function removeMembersStep(s: Step, ids: number[]): Promise<void> {
  await activeUsersByIds(s.tx, s.ctx.realm.id, ids);
  const self = ids.length === 1 && ids[0] === s.ctx.actor.id;
  const group = await accessForMembership(s, self, "can_leave_group", "can_remove_members_group");
  const existing = new Set(await activeDirectMemberIds(s.tx, group.id));
  let missing = ids.find((id) => !existing.has(id));
  if (missing === undefined) missing = leftOut(unique(ids), await removeMembers(s.tx, group.id, unique(ids)));
  if (missing !== undefined) throw new JsonableError(`There is no member '${missing}' in this user group`);
  s.emit(userGroupMembersEvent("remove_members", group.id, unique(ids), group.deactivated === 1), s.everyone);
}

async function addSubgroupsStep(s: Step, ids: number[]): Promise<void> {
  const group = await accessGroupForUpdate(s.tx, s.ctx.realm, s.ctx.actor, s.groupId, "can_add_members_group", { allowDeactivated: true });
  await checkSubgroupCandidates(s.tx, s.ctx.realm.id, ids);
  const existing = new Set(await directSubgroupIds(s.tx, group.id));
  const already = ids.find((id) => existing.has(id));
  if (already !== undefined) throw new JsonableError(`User group ${already} is already a subgroup of this group.`);
  if ((await recursiveSubgroupIds(s.tx, ids)).includes(group.id)) {
    throw new JsonableError(`User group ${group.id} is already a subgroup of one of the passed subgroups.`);
  }
  const raced = leftOut(unique(ids), await addSubgroups(s.tx, group.id, unique(ids)));
  if (raced !== undefined) throw new JsonableError(`User group ${raced} is already a subgroup of this group.`);
  s.emit(userGroupSubgroupsEvent("add_subgroups", group.id, unique(ids), group.deactivated === 1), s.everyone);
}

async function removeSubgroupsStep(s: Step, ids: number[]): Promise<void> {
  const group = await accessGroupForUpdate(s.tx, s.ctx.realm, s.ctx.actor, s.groupId, "can_manage_group", { allowDeactivated: true });
  const named = new Set((await groupsByIds(s.tx, s.ctx.realm.id, ids)).filter((g) => g.name !== null).map((g) => g.id));
  const unknown = ids.find((id) => !named.has(id));
  if (unknown !== undefined) throw new JsonableError(`Invalid user group ID: ${unknown}`);
  const existing = new Set(await directSubgroupIds(s.tx, group.id));
  let absent = ids.find((id) => !existing.has(id));
  if (absent === undefined) absent = leftOut(unique(ids), await removeSubgroups(s.tx, group.id, unique(ids)));
  if (absent !== undefined) throw new JsonableError(`User group ${absent} is not a subgroup of this group.`);
  s.emit(userGroupSubgroupsEvent("remove_subgroups", group.id, unique(ids), group.deactivated === 1), s.everyone);
}

/** POST /user_groups/{id}/members and /subgroups parameters: ids to add and to remove. */
type MembershipChanges = { add?: number[]; delete?: number[]; add_subgroups?: number[]; delete_subgroups?: number[] };

/** Runs the requested steps in one transaction, in Zulip's order; any refusal undoes them all. */
async function runSteps(ctx: AuthedCtx, groupId: number, c: MembershipChanges): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    const s: Step = { tx, ctx, groupId, emit, everyone: await activeUserIds(tx, ctx.realm.id) };
    if (c.add?.length) await addMembersStep(s, c.add);
    if (c.delete?.length) await removeMembersStep(s, c.delete);
    if (c.add_subgroups?.length) await addSubgroupsStep(s, c.add_subgroups);
    if (c.delete_subgroups?.length) await removeSubgroupsStep(s, c.delete_subgroups);
  });
  return {};
}

/**
 * POST /user_groups/{id}/members: adding others needs can_add_members_group, removing them
 * can_remove_members_group; joining and leaving oneself can_join_group / can_leave_group; adding
 * subgroups can_add_members_group, removing them can_manage_group. Deactivated groups' membership
 * stays editable (FL 391).
 */
export async function updateUserGroupMembers(ctx: AuthedCtx, groupId: number, c: MembershipChanges): Promise<Record<string, never>> {
  checkMemberOrAdmin(ctx.actor);
  if (!c.add?.length && !c.delete?.length && !c.add_subgroups?.length && !c.delete_subgroups?.length) {
    throw new JsonableError('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
  }
  return runSteps(ctx, groupId, c);
}

/** POST /user_groups/{id}/subgroups: the subgroup half of the members endpoint. */
export async function updateUserGroupSubgroups(ctx: AuthedCtx, groupId: number, c: { add?: number[]; delete?: number[] }): Promise<Record<string, never>> {
  checkMemberOrAdmin(ctx.actor);
  if (!c.add?.length && !c.delete?.length) throw new JsonableError('Nothing to do. Specify at least one of "add" or "delete".');
  return runSteps(ctx, groupId, { add_subgroups: c.add, delete_subgroups: c.delete });
}

/** GET /user_groups/{id}/members: active members, direct or through subgroups. */
export async function getUserGroupMembers(ctx: AuthedCtx, groupId: number, directOnly: boolean): Promise<{ members: number[] }> {
  checkMemberOrAdmin(ctx.actor);
  const group = await getNamedGroup(ctx.db, ctx.realm.id, groupId, { allowDeactivated: false });
  return { members: directOnly ? await activeDirectMemberIds(ctx.db, group.id) : await effectiveMemberIds(ctx.db, group.id) };
}

/** GET /user_groups/{id}/members/{user_id}: whether an active user is a member. */
export async function isUserGroupMember(ctx: AuthedCtx, groupId: number, userId: number, directOnly: boolean): Promise<{ is_user_group_member: boolean }> {
  checkMemberOrAdmin(ctx.actor);
  const group = await getNamedGroup(ctx.db, ctx.realm.id, groupId, { allowDeactivated: false });
  const user = await accessUserById(ctx, userId, { forAdmin: false });
  const member = directOnly ? (await activeDirectMemberIds(ctx.db, group.id)).includes(user.id) : await isUserInGroup(ctx.db, group.id, user.id);
  return { is_user_group_member: member };
}

/** GET /user_groups/{id}/subgroups: direct subgroups, or every group nested below. */
export async function getUserGroupSubgroups(ctx: AuthedCtx, groupId: number, directOnly: boolean): Promise<{ subgroups: number[] }> {
  checkMemberOrAdmin(ctx.actor);
  const group = await getNamedGroup(ctx.db, ctx.realm.id, groupId, { allowDeactivated: false });
  const direct = await directSubgroupIds(ctx.db, group.id);
  return { subgroups: directOnly ? direct : await recursiveSubgroupIds(ctx.db, direct) };
}

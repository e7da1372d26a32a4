/** User groups: creating, listing, renaming and re-permissioning, deactivating and reactivating. */
import { nowSeconds } from "../../clock.ts";
import { CannotDeactivateGroupInUseError, JsonableError, PermissionDeniedError } from "../../errors.ts";
import { userGroupAddEvent, userGroupUpdateEvent } from "../../events/kinds/user-groups.ts";
import { hasRealmPermission } from "../../permissions/check.ts";
import { accessGroupForUpdate, checkMemberOrAdmin, groupSettingColumn } from "../../permissions/group-access.ts";
import { presentGroupSetting, type GroupSettingValue } from "../../permissions/group-setting.ts";
import { GROUP_PERMISSION_SETTINGS, type GroupPermissionSetting } from "../../permissions/group-access.ts";
import type { ApiUserGroup } from "../../present/user-groups.ts";
import { presentGroupById, userGroupsSnapshot } from "../../register/user-groups.ts";
import { loadGroupIndex } from "../../store/groups/group-index.ts";
import type { Db } from "../../store/schema/types.ts";
import type { Updateable } from "kysely";
import type { UserGroupRow, UserGroupTable } from "../../store/schema/database.ts";
import { addMembers, addSubgroups, getGroupByNameInsensitive, insertNamedGroup, updateGroup } from "../../store/groups/user-groups.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { activeUsersByIds, checkSubgroupCandidates } from "./members.ts";
import { changedGroupSettingColumns, deactivationObjections, dropUnusedAnonymousGroups, newGroupSettingColumns, type GroupSettingChange } from "./settings.ts";

/** Zulip's NamedUserGroup.MAX_NAME_LENGTH. */
const MAX_GROUP_NAME_LENGTH = 100;
/** Prefixes reserved for system groups and mention syntax. */
const INVALID_NAME_PREFIXES = ["@", "role:", "user:", "stream:", "channel:"];

/** Zulip's group-name rules: not blank, at most 100 characters, no reserved prefix. */
function checkGroupName(name: string): void {
  if (name.trim() === "") throw new JsonableError("User group name can't be empty!");
  if ([...name].length > MAX_GROUP_NAME_LENGTH) throw new JsonableError(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  const prefix = INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw new JsonableError(`User group name cannot start with '${prefix}'.`);
}

/** Refuses a name another group of the realm has (names are unique ignoring case). */
async function checkNameFree(db: Db, realmId: number, name: string, self: number | null): Promise<void> {
  const clash = await getGroupByNameInsensitive(db, realmId, name);
  if (clash && clash.id !== self) throw new JsonableError(`User group '${name}' already exists.`);
}

/** POST /user_groups/create's parameters. */
type NewUserGroup = {
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  settings: Partial<Record<GroupPermissionSetting, GroupSettingValue>>;
};

/** POST /user_groups/create: the caller needs the realm's can_create_groups; its creator may add subgroups. */
export async function createUserGroup(ctx: AuthedCtx, input: NewUserGroup): Promise<{ group_id: number }> {
  checkMemberOrAdmin(ctx.actor);
  if (!(await hasRealmPermission(ctx.db, ctx.realm, ctx.actor, "can_create_groups"))) throw new PermissionDeniedError();
  return withTransaction(ctx, async (tx, emit) => {
    const members = [...new Set(input.members)];
    await activeUsersByIds(tx, ctx.realm.id, members);
    checkGroupName(input.name);
    const columns = await newGroupSettingColumns(tx, ctx.realm, ctx.actor, input.settings);
    await checkNameFree(tx, ctx.realm.id, input.name, null);
    // A concurrent create of the same name may commit between the check and the insert.
    const group = await insertNamedGroup(tx, {
      realm_id: ctx.realm.id,
      name: input.name,
      description: input.description,
      is_system_group: 0,
      deactivated: 0,
      date_created: nowSeconds(ctx.clock),
      creator_id: ctx.actor.id,
      ...columns,
    });
    if (!group) throw new JsonableError(`User group '${input.name}' already exists.`);
    await addMembers(tx, group.id, members);
    const subgroups = [...new Set(input.subgroups ?? [])];
    await checkSubgroupCandidates(tx, ctx.realm.id, subgroups);
    await addSubgroups(tx, group.id, subgroups);
    emit(userGroupAddEvent(await presentGroupById(tx, ctx.realm.id, group.id)), await activeUserIds(tx, ctx.realm.id));
    return { group_id: group.id };
  });
}

/** GET /user_groups: every named group; deactivated ones only when asked (FL 290/294). */
export async function listUserGroups(ctx: AuthedCtx, includeDeactivated: boolean): Promise<{ user_groups: ApiUserGroup[] }> {
  checkMemberOrAdmin(ctx.actor);
  const index = await loadGroupIndex(ctx.db, ctx.realm.id);
  return { user_groups: userGroupsSnapshot(index, includeDeactivated) };
}

/** PATCH /user_groups/{id}'s parameters; absent ones are left unchanged. */
type UserGroupChanges = {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<GroupPermissionSetting, GroupSettingChange>>;
};

function nothingRequested(c: UserGroupChanges): boolean {
  return c.name === undefined && c.description === undefined && c.deactivated === undefined && Object.keys(c.settings).length === 0;
}

/**
 * PATCH /user_groups/{id}: needs can_manage_group (or the realm's can_manage_all_groups). A
 * deactivated group's name, description and settings stay editable (FL 340); `deactivated=false`
 * reactivates it (FL 386) and `true` changes nothing.
 */
export async function updateUserGroup(ctx: AuthedCtx, groupId: number, c: UserGroupChanges): Promise<Record<string, never>> {
  checkMemberOrAdmin(ctx.actor);
  if (nothingRequested(c)) throw new JsonableError("No new data supplied");
  await withTransaction(ctx, async (tx, emit) => {
    const group = await accessGroupForUpdate(tx, ctx.realm, ctx.actor, groupId, "can_manage_group", { allowDeactivated: true });
    const name = c.name !== undefined && c.name !== group.name ? c.name : undefined;
    if (name !== undefined) {
      checkGroupName(name);
      await checkNameFree(tx, ctx.realm.id, name, group.id);
    }
    const description = c.description !== undefined && c.description !== group.description ? c.description : undefined;
    const reactivate = c.deactivated === false && group.deactivated === 1;
    const columns = await changedGroupSettingColumns(tx, ctx.realm, group, c.settings);
    const patch: Updateable<UserGroupTable> = { ...columns };
    if (name !== undefined) patch.name = name;
    if (description !== undefined) patch.description = description;
    if (reactivate) patch.deactivated = 0;
    if (Object.keys(patch).length === 0) return;
    const updated = await updateGroup(tx, ctx.realm.id, group.id, patch);
    await dropUnusedAnonymousGroups(tx, ctx.realm, replacedSettingGroups(group, updated));
    const everyone = await activeUserIds(tx, ctx.realm.id);
    const wasDeactivated = group.deactivated === 1;
    if (name !== undefined) emit(userGroupUpdateEvent(group.id, { name }, wasDeactivated), everyone);
    if (description !== undefined) emit(userGroupUpdateEvent(group.id, { description }, wasDeactivated), everyone);
    if (reactivate) {
      emit(userGroupUpdateEvent(group.id, { deactivated: false }), everyone);
      emit(userGroupAddEvent(await presentGroupById(tx, ctx.realm.id, group.id), { forReactivation: true }), everyone);
    }
    for (const setting of GROUP_PERMISSION_SETTINGS) {
      const id = columns[groupSettingColumn(setting)];
      if (id === undefined) continue;
      const value = await presentGroupSetting(tx, ctx.realm.id, id);
      emit(userGroupUpdateEvent(group.id, { [setting]: value }, updated.deactivated === 1), everyone);
    }
  });
  return {};
}

/** The setting groups a group held before an update and no longer does. */
function replacedSettingGroups(before: UserGroupRow, after: UserGroupRow): number[] {
  return GROUP_PERMISSION_SETTINGS.map(groupSettingColumn)
    .filter((col) => before[col] !== after[col])
    .map((col) => before[col])
    .filter((id): id is number => id !== null);
}

/**
 * POST /user_groups/{id}/deactivate (FL 290): needs can_manage_group; refused while the group is
 * a subgroup of an active group or holds any permission setting.
 */
export async function deactivateUserGroup(ctx: AuthedCtx, groupId: number): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    const group = await accessGroupForUpdate(tx, ctx.realm, ctx.actor, groupId, "can_manage_group", { allowDeactivated: false });
    const objections = await deactivationObjections(tx, ctx.realm, group.id);
    if (objections.length > 0) throw new CannotDeactivateGroupInUseError(objections);
    await updateGroup(tx, ctx.realm.id, group.id, { deactivated: 1 });
    const everyone = await activeUserIds(tx, ctx.realm.id);
    // Clients without include_deactivated_groups get this as `remove` (events/adapters.ts).
    emit(userGroupUpdateEvent(group.id, { deactivated: true }), everyone);
  });
  return {};
}

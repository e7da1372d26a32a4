/**
 * The user groups screen: the organization's own groups (system groups left out), who may do
 * what to each (upstream's rules: the realm's can_create_groups and can_manage_all_groups, each
 * group's can_manage_group, can_join_group, can_leave_group, can_add_members_group and
 * can_remove_members_group; never guests), and the changes, each followed by fetching the groups
 * again (the event queue brings no group events). The server decides every change.
 */
import { computed } from "@preact/signals";
import { organizationApi } from "../api/organization.ts";
import type { UserGroup } from "../api/types.ts";
import { holdsRealmPermission, refreshGroups, userGroups, userHolds } from "./groups.ts";
import { myRole, ROLE } from "./settings.ts";
import { me } from "./store.ts";

/** The active groups people made, by name. */
export const customGroups = computed<readonly UserGroup[]>(() =>
  [...userGroups.value.values()].filter((g) => !g.is_system_group && !g.deactivated).sort((a, b) => a.name.localeCompare(b.name)),
);

/** The group settings a member's own actions depend on. */
export type MemberPermission = "can_join_group" | "can_leave_group" | "can_add_members_group" | "can_remove_members_group";

/** The permission settings the screen lets managers choose, with whether "everyone" may hold them (upstream's rules). */
export const GROUP_PERMISSIONS = [
  { name: "can_manage_group", label: "Who can manage this group", everyone: false },
  { name: "can_add_members_group", label: "Who can add members", everyone: false },
  { name: "can_join_group", label: "Who can join", everyone: false },
  { name: "can_leave_group", label: "Who can leave", everyone: true },
] as const;

/** The name of one of the settings above. */
export type EditablePermission = (typeof GROUP_PERMISSIONS)[number]["name"];

const notGuest = () => myRole.value !== ROLE.guest;

/** Whether the user may create groups. */
export const canCreateGroups = computed(() => notGuest() && holdsRealmPermission("can_create_groups"));

/** Whether the user manages a group: everything about it may be changed. */
export function canManageGroup(group: UserGroup): boolean {
  return notGuest() && (holdsRealmPermission("can_manage_all_groups") || userHolds(group.can_manage_group));
}

/** Whether the user may do what one of a group's settings allows (managers may do it all). */
export function mayInGroup(group: UserGroup, setting: MemberPermission): boolean {
  return notGuest() && (canManageGroup(group) || userHolds(group[setting]));
}

/** Whether the user is a direct member of a group. */
export function isMember(group: UserGroup): boolean {
  const id = me.value?.user_id;
  return id !== undefined && group.members.includes(id);
}

/** Creates a group with the user as its first member. */
export async function createGroup(name: string, description: string): Promise<void> {
  const id = me.value?.user_id;
  await organizationApi.createGroup(name, description, id === undefined ? [] : [id]);
  await refreshGroups();
}

/** Renames a group or changes its description (only what changed is sent). */
export async function saveGroup(groupId: number, changes: { name?: string; description?: string }): Promise<void> {
  if (changes.name === undefined && changes.description === undefined) return;
  await organizationApi.updateGroup(groupId, changes);
  await refreshGroups();
}

/** Sets one of a group's permission settings to a group. */
export async function setGroupPermission(groupId: number, setting: EditablePermission, holderId: number): Promise<void> {
  await organizationApi.updateGroup(groupId, { [setting]: { new: holderId } });
  await refreshGroups();
}

/** Adds or removes members and subgroups. */
export async function changeMembership(groupId: number, change: { add?: number[]; delete?: number[]; add_subgroups?: number[]; delete_subgroups?: number[] }): Promise<void> {
  await organizationApi.groupMembers(groupId, change);
  await refreshGroups();
}

/** Joins or leaves a group. */
export async function setMembership(groupId: number, join: boolean): Promise<void> {
  const id = me.value?.user_id;
  if (id !== undefined) await changeMembership(groupId, join ? { add: [id] } : { delete: [id] });
}

/** Deactivates a group (refused while it holds a permission or is another group's subgroup). */
export async function deactivateGroup(groupId: number): Promise<void> {
  await organizationApi.deactivateGroup(groupId);
  await refreshGroups();
}

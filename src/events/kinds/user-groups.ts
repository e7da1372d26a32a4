/**
 * user_group events. They go to every active user of the realm; `userGroupEventForQueue`
 * shapes them per queue for the include_deactivated_groups capability (FL 294).
 */
import type { GroupSettingValue } from "../../permissions/group-setting.ts";
import type { GroupPermissionSetting } from "../../permissions/group-access.ts";
import type { ApiUserGroup } from "../../present/user-groups.ts";
import type { ClientCapabilities } from "../queue-options.ts";

/**
 * Internal markers, removed before delivery. `for_reactivation`: the `add` that re-announces a
 * reactivated group to clients that dropped it. `deactivated`: the event concerns a deactivated
 * group, which clients without include_deactivated_groups do not have.
 */
type Markers = { for_reactivation?: true; deactivated?: true };

/** A group was created (or reactivated, for clients without include_deactivated_groups). */
type UserGroupAddEvent = { type: "user_group"; op: "add"; group: ApiUserGroup } & Markers;

/** Changed properties of a group. */
type UserGroupUpdateData = Partial<{ name: string; description: string; deactivated: boolean } & Record<GroupPermissionSetting, GroupSettingValue>>;
/** Changed properties of a group (`data` holds only those). */
type UserGroupUpdateEvent = { type: "user_group"; op: "update"; group_id: number; data: UserGroupUpdateData } & Markers;

/** Users joined or left a group's direct members. */
type UserGroupMembersEvent = { type: "user_group"; op: "add_members" | "remove_members"; group_id: number; user_ids: number[] } & Markers;

/** Groups added to or removed from a group's direct subgroups. */
type UserGroupSubgroupsEvent = { type: "user_group"; op: "add_subgroups" | "remove_subgroups"; group_id: number; direct_subgroup_ids: number[] } & Markers;

/** A group was deactivated, as clients without include_deactivated_groups see it. */
type UserGroupRemoveEvent = { type: "user_group"; op: "remove"; group_id: number };

/** Every user_group event. */
export type UserGroupEvent = UserGroupAddEvent | UserGroupUpdateEvent | UserGroupMembersEvent | UserGroupSubgroupsEvent | UserGroupRemoveEvent;

/** The markers of an event about a group that is (or is not) deactivated, for the adapter. */
function marker(groupDeactivated: boolean): Markers {
  return groupDeactivated ? { deactivated: true } : {};
}

/** A new group, or a reactivated one re-announced (`forReactivation`). */
export function userGroupAddEvent(group: ApiUserGroup, opts: { forReactivation?: boolean } = {}): UserGroupAddEvent {
  return opts.forReactivation ? { type: "user_group", op: "add", group, for_reactivation: true } : { type: "user_group", op: "add", group };
}

/** Changed properties of a group; `groupDeactivated` when the group is (still) deactivated. */
export function userGroupUpdateEvent(groupId: number, data: UserGroupUpdateData, groupDeactivated = false): UserGroupUpdateEvent {
  return { type: "user_group", op: "update", group_id: groupId, data, ...marker(groupDeactivated) };
}

/** The event for users added to (`add_members`) or removed from (`remove_members`) a group. */
export function userGroupMembersEvent(op: UserGroupMembersEvent["op"], groupId: number, userIds: number[], groupDeactivated = false): UserGroupMembersEvent {
  return { type: "user_group", op, group_id: groupId, user_ids: userIds, ...marker(groupDeactivated) };
}

/** The event for subgroups added to (`add_subgroups`) or removed from (`remove_subgroups`) a group. */
export function userGroupSubgroupsEvent(op: UserGroupSubgroupsEvent["op"], groupId: number, subgroupIds: number[], groupDeactivated = false): UserGroupSubgroupsEvent {
  return { type: "user_group", op, group_id: groupId, direct_subgroup_ids: subgroupIds, ...marker(groupDeactivated) };
}

/** A deactivated group leaving the view of clients without include_deactivated_groups (built per queue). */
function userGroupRemoveEvent(groupId: number): UserGroupRemoveEvent {
  return { type: "user_group", op: "remove", group_id: groupId };
}

/** The event as clients receive it: without the internal markers. */
function withoutMarkers(event: Exclude<UserGroupEvent, UserGroupRemoveEvent>): UserGroupEvent {
  const { for_reactivation: _forReactivation, deactivated: _deactivated, ...clean } = event;
  return clean;
}

/**
 * How a queue sees a `user_group` event (FL 294). A client with include_deactivated_groups keeps
 * deactivated groups: it gets `update {deactivated}` and never the re-announcing `add`. A client
 * without it never holds one: deactivation reaches it as `remove`, reactivation as `add`, and
 * changes to a deactivated group (renames included) not at all. Meant for the `user_group` entry
 * of events/adapters.ts.
 */
export function userGroupEventForQueue(event: UserGroupEvent, options: { capabilities: Pick<ClientCapabilities, "include_deactivated_groups"> }): UserGroupEvent | null {
  if (event.op === "remove") return event;
  if (options.capabilities.include_deactivated_groups) return event.for_reactivation ? null : withoutMarkers(event);
  if (event.op === "update" && event.data.deactivated === true) return userGroupRemoveEvent(event.group_id);
  if ((event.op === "update" && event.data.deactivated === false) || event.deactivated) return null;
  return withoutMarkers(event);
}

/** User groups in their API shape, for the register snapshot, REST responses and events. */
import type { GroupSettingValue } from "../permissions/group-setting.ts";
import type { GroupPermissionSetting } from "../permissions/group-access.ts";
import { SYSTEM_GROUP } from "../model/roles.ts";
import type { UserGroupRow } from "../store/schema/database.ts";
import type { GroupIndex } from "../store/groups/group-index.ts";

/** SPEC.md's user group object. */
export type ApiUserGroup = {
  id: number;
  name: string;
  description: string;
  date_created: number | null;
  creator_id: number | null;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  deactivated: boolean;
} & Record<GroupPermissionSetting, GroupSettingValue>;

const COLUMN: Record<GroupPermissionSetting, keyof UserGroupRow> = {
  can_add_members_group: "can_add_members_group_id",
  can_join_group: "can_join_group_id",
  can_leave_group: "can_leave_group_id",
  can_manage_group: "can_manage_group_id",
  can_mention_group: "can_mention_group_id",
  can_remove_members_group: "can_remove_members_group_id",
};

/**
 * The API form of a setting stored as a group id: a named group's id, or the anonymous group's
 * `{direct_members, direct_subgroups}` (deactivated users left out, FL 303).
 */
export function groupSettingValue(index: GroupIndex, groupId: number): GroupSettingValue {
  const group = index.groups.get(groupId);
  if (!group) throw new Error(`group setting points at missing group ${groupId}`);
  if (group.name !== null) return group.id;
  return { direct_members: index.members.get(groupId) ?? [], direct_subgroups: index.subgroups.get(groupId) ?? [] };
}

function nobodyGroupId(index: GroupIndex): number {
  for (const group of index.groups.values()) if (group.is_system_group === 1 && group.name === SYSTEM_GROUP.nobody) return group.id;
  throw new Error("realm has no role:nobody group");
}

function settingValue(group: UserGroupRow, setting: GroupPermissionSetting, index: GroupIndex): GroupSettingValue {
  const stored = group[COLUMN[setting]];
  // An unset permission is held by nobody.
  return groupSettingValue(index, typeof stored === "number" ? stored : nobodyGroupId(index));
}

/** A named group as the API shows it. */
export function presentUserGroup(group: UserGroupRow & { name: string }, index: GroupIndex): ApiUserGroup {
  const value = (setting: GroupPermissionSetting) => settingValue(group, setting, index);
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    date_created: group.date_created,
    creator_id: group.creator_id,
    members: index.members.get(group.id) ?? [],
    direct_subgroup_ids: index.subgroups.get(group.id) ?? [],
    is_system_group: group.is_system_group === 1,
    deactivated: group.deactivated === 1,
    can_add_members_group: value("can_add_members_group"),
    can_join_group: value("can_join_group"),
    can_leave_group: value("can_leave_group"),
    can_manage_group: value("can_manage_group"),
    can_mention_group: value("can_mention_group"),
    can_remove_members_group: value("can_remove_members_group"),
  };
}

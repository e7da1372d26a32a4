/**
 * Who may read and change a user group: the per-setting rules of the group permission settings,
 * and the fetch-and-authorize functions every user-group action starts with (Zulip's
 * access_user_group_for_update and friends).
 */
import { JsonableError, PermissionDeniedError } from "../errors.ts";
import type { Db } from "../store/schema/types.ts";
import type { RealmRow, UserGroupRow, UserRow } from "../store/schema/database.ts";
import { getGroup } from "../store/groups/user-groups.ts";
import { hasRealmPermission, isGuest } from "./check.ts";
import { isUserInGroup } from "../store/groups/group-membership.ts";
import { SYSTEM_GROUP, type SystemGroupName } from "../model/roles.ts";

/** The permission settings every user group carries, as API names. */
export const GROUP_PERMISSION_SETTINGS = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group",
] as const;

/** The name of one of a user group's permission settings. */
export type GroupPermissionSetting = (typeof GROUP_PERMISSION_SETTINGS)[number];

/** "creator": an anonymous group holding only the group's creator (Zulip's group_creator). */
type GroupSettingDefault = SystemGroupName | "creator";

/**
 * Each group permission setting: the system groups it may never be set to (SPEC.md), whether
 * guests can hold it (Zulip's allow_everyone_group) and its value for a new group.
 */
export const GROUP_SETTING_RULES: Readonly<Record<GroupPermissionSetting, { forbidden: readonly SystemGroupName[]; allowGuests: boolean; default: GroupSettingDefault }>> = {
  can_add_members_group: { forbidden: [SYSTEM_GROUP.internet, SYSTEM_GROUP.everyone], allowGuests: false, default: "creator" },
  can_join_group: { forbidden: [SYSTEM_GROUP.internet, SYSTEM_GROUP.everyone], allowGuests: false, default: SYSTEM_GROUP.nobody },
  can_leave_group: { forbidden: [SYSTEM_GROUP.internet], allowGuests: true, default: SYSTEM_GROUP.everyone },
  can_manage_group: { forbidden: [SYSTEM_GROUP.internet, SYSTEM_GROUP.everyone], allowGuests: false, default: "creator" },
  can_mention_group: { forbidden: [SYSTEM_GROUP.internet, SYSTEM_GROUP.owners], allowGuests: true, default: SYSTEM_GROUP.everyone },
  can_remove_members_group: { forbidden: [SYSTEM_GROUP.internet, SYSTEM_GROUP.everyone], allowGuests: false, default: SYSTEM_GROUP.nobody },
};

/** The column that stores a setting. */
export function groupSettingColumn<S extends GroupPermissionSetting>(setting: S): `${S}_id` {
  return `${setting}_id`;
}

/** Guests and bots may not use the user-group endpoints (Zulip's require_member_or_admin). */
export function checkMemberOrAdmin(actor: UserRow): void {
  if (isGuest(actor)) throw new JsonableError("Not allowed for guest users");
  if (actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
}

/** A named group of the realm; anonymous setting groups do not count as groups here. */
export async function getNamedGroup(db: Db, realmId: number, groupId: number, opts: { allowDeactivated: boolean }): Promise<UserGroupRow & { name: string }> {
  const group = await getGroup(db, realmId, groupId);
  if (!group || group.name === null) throw new JsonableError("Invalid user group");
  if (!opts.allowDeactivated && group.deactivated === 1) throw new JsonableError("User group is deactivated.");
  return { ...group, name: group.name };
}

/** Whether the user holds one of a group's permission settings (guests only those open to them). */
async function hasGroupPermission(db: Db, user: UserRow, group: UserGroupRow, setting: GroupPermissionSetting): Promise<boolean> {
  if (isGuest(user) && !GROUP_SETTING_RULES[setting].allowGuests) return false;
  const holder = group[groupSettingColumn(setting)];
  return holder !== null && isUserInGroup(db, holder, user.id);
}

/** Whether the user may manage every group of the realm (realm can_manage_all_groups; never guests). */
async function canManageAllGroups(db: Db, realm: RealmRow, user: UserRow): Promise<boolean> {
  return !isGuest(user) && hasRealmPermission(db, realm, user, "can_manage_all_groups");
}

/**
 * The group, if the actor may change it as `permission` allows: system groups never; managers
 * (realm-wide or through can_manage_group) always; otherwise the named setting decides.
 */
export async function accessGroupForUpdate(
  db: Db,
  realm: RealmRow,
  actor: UserRow,
  groupId: number,
  permission: GroupPermissionSetting,
  opts: { allowDeactivated: boolean },
): Promise<UserGroupRow & { name: string }> {
  const group = await getNamedGroup(db, realm.id, groupId, opts);
  if (group.is_system_group === 1) throw new PermissionDeniedError();
  if (await canManageGroup(db, realm, actor, group)) return group;
  if (permission !== "can_manage_group" && (await hasGroupPermission(db, actor, group, permission))) return group;
  throw new PermissionDeniedError();
}

/** Whether the actor manages the group, realm-wide or through its can_manage_group. */
async function canManageGroup(db: Db, realm: RealmRow, actor: UserRow, group: UserGroupRow): Promise<boolean> {
  return (await canManageAllGroups(db, realm, actor)) || hasGroupPermission(db, actor, group, "can_manage_group");
}

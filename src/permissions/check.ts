/** Permission checks against realm settings that hold group-setting values. */
import type { Db } from "../store/schema/types.ts";
import type { RealmRow, UserRow } from "../store/schema/database.ts";
import { isUserInGroup } from "../store/groups/group-membership.ts";
import { realmSettings, type RealmGroupSetting } from "./realm-settings.ts";
import { ROLE } from "../model/roles.ts";

/** Whether the user belongs to the group named by a realm permission setting. */
export function hasRealmPermission(db: Db, realm: RealmRow, user: UserRow, setting: RealmGroupSetting): Promise<boolean> {
  return isUserInGroup(db, realmSettings(realm)[setting], user.id);
}

/** Owners and administrators. */
export function isRealmAdmin(user: Pick<UserRow, "role">): boolean {
  return user.role === ROLE.owner || user.role === ROLE.administrator;
}

/** Owners, administrators and moderators. */
export function isModeratorOrAbove(user: Pick<UserRow, "role">): boolean {
  return isRealmAdmin(user) || user.role === ROLE.moderator;
}

/** Guests. */
export function isGuest(user: Pick<UserRow, "role">): boolean {
  return user.role === ROLE.guest;
}

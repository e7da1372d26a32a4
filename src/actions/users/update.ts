/** PATCH /users/{user_id} and /users/{email}: name, role, custom profile data and email of a user. */
import type { Transaction } from "kysely";
import { AdministratorRequiredError, JsonableError, OwnerRequiredError } from "../../errors.ts";
import { isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { ROLE, systemGroupsForRole } from "../../model/roles.ts";
import { canSeeDeliveryEmail } from "../../permissions/email-visibility.ts";
import { avatarUrl } from "../../present/users.ts";
import { EMAIL_VISIBILITY } from "../../model/emails.ts";
import { realmBotUpdateEvent } from "../../events/kinds/bots.ts";
import { userGroupMembersEvent } from "../../events/kinds/user-groups.ts";
import { realmUserUpdateEvent } from "../../events/kinds/users.ts";
import { addMembers, removeMembers, systemGroupsByName } from "../../store/groups/user-groups.ts";
import type { Database, RealmRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { activeUserIds, countActiveHumanOwners, getUserByDeliveryEmail, updateUser as storeUpdateUser } from "../../store/users/users.ts";
import { CAN_CHANGE_USER_EMAILS } from "./credentials.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { doUpdateProfileData, validateProfileData, type ProfileDataUpdate } from "./profile-data.ts";
import { checkFullName, isEmailAddress } from "./accounts.ts";
import { accessUserByEmail, accessUserById, botAdministratorIds, usersWhoCanAccess } from "../../permissions/user-access.ts";

/** The changes PATCH /users accepts; absent ones are left alone. */
type UserChanges = { full_name?: string; role?: number; profile_data?: ProfileDataUpdate[]; new_email?: string };

function hasSpecialPermission(user: UserRow, key: string): boolean {
  const settings: unknown = JSON.parse(user.settings || "{}");
  return settings !== null && typeof settings === "object" && Reflect.get(settings, key) === true;
}

/** Role rules that need no database: who may grant or take the owner role, guests never administrators. */
function checkRoleChange(actor: UserRow, target: UserRow, role: number): void {
  if ((role === ROLE.owner || target.role === ROLE.owner) && actor.role !== ROLE.owner) throw new OwnerRequiredError();
  if (!isRealmAdmin(actor)) throw new AdministratorRequiredError();
  if (isGuest(target) && (role === ROLE.administrator || role === ROLE.owner)) {
    throw new JsonableError("Guests cannot be organization administrators");
  }
}

/**
 * Changes a user's role and moves it between system groups, announcing the role to those who
 * can access the user and the membership changes to everyone.
 */
async function doChangeUserRole(tx: Db, env: Pick<DoEnv, "realm" | "emit">, user: UserRow, role: number, recipients: number[]): Promise<void> {
  const { realm, emit } = env;
  await storeUpdateUser(tx, realm.id, user.id, { role });
  emit(realmUserUpdateEvent(user.id, { role }), recipients);
  const groups = await systemGroupsByName(tx, realm.id);
  const before = systemGroupsForRole(user.role);
  const after = systemGroupsForRole(role);
  const everyone = await activeUserIds(tx, realm.id);
  for (const name of before.filter((n) => !after.includes(n))) {
    const group = groups.get(name);
    if (!group) throw new Error(`realm ${realm.id} lacks system group ${name}`);
    await removeMembers(tx, group.id, [user.id]);
    emit(userGroupMembersEvent("remove_members", group.id, [user.id]), everyone);
  }
  for (const name of after.filter((n) => !before.includes(n))) {
    const group = groups.get(name);
    if (!group) throw new Error(`realm ${realm.id} lacks system group ${name}`);
    await addMembers(tx, group.id, [user.id]);
    emit(userGroupMembersEvent("add_members", group.id, [user.id]), everyone);
  }
}

/** Renames a user (and, for a bot, tells those who administer it). */
export async function doChangeFullName(tx: Db, env: Pick<DoEnv, "realm" | "emit">, user: UserRow, fullName: string, recipients: number[]): Promise<void> {
  const { realm, emit } = env;
  await storeUpdateUser(tx, realm.id, user.id, { full_name: fullName });
  emit(realmUserUpdateEvent(user.id, { full_name: fullName }), recipients);
  if (user.is_bot === 1) emit(realmBotUpdateEvent(user.id, { full_name: fullName }), await botAdministratorIds(tx, realm, user));
}

/** Changes a user's delivery email; the gravatar follows the address, and the API email if public. */
export async function doChangeEmail(tx: Db, env: Pick<DoEnv, "realm" | "emit">, user: UserRow, email: string, recipients: UserRow[]): Promise<void> {
  const { realm, emit } = env;
  const updated = await storeUpdateUser(tx, realm.id, user.id, { delivery_email: email });
  const all = recipients.map((r) => r.id);
  emit(realmUserUpdateEvent(user.id, { delivery_email: email }), recipients.filter((r) => canSeeDeliveryEmail(r, user)).map((r) => r.id));
  const avatar = { avatar_source: updated.avatar_source, avatar_url: avatarUrl(updated), avatar_url_medium: avatarUrl(updated, true), avatar_version: updated.avatar_version };
  emit(realmUserUpdateEvent(user.id, avatar), all);
  if (user.email_address_visibility === EMAIL_VISIBILITY.everyone) emit(realmUserUpdateEvent(user.id, { new_email: email }), all);
}

/** Validates a new address: well-formed and not used by another account of the realm. */
async function checkNewEmail(tx: Transaction<Database>, realm: RealmRow, user: UserRow, email: string): Promise<string> {
  const trimmed = email.trim();
  if (!isEmailAddress(trimmed)) throw new JsonableError("Invalid address.");
  const holder = await getUserByDeliveryEmail(tx, realm.id, trimmed);
  if (holder && holder.id !== user.id) throw new JsonableError(`Email '${trimmed}' already in use`);
  return trimmed;
}

/** Applies every requested change in one transaction; any refusal writes nothing. */
export async function updateUser(ctx: AuthedCtx, target: number | string, changes: UserChanges): Promise<Record<string, never>> {
  const opts = { allowDeactivated: true, allowBots: true, forAdmin: true };
  const user = typeof target === "number" ? await accessUserById(ctx, target, opts) : await accessUserByEmail(ctx, target, opts);
  const { actor, realm } = ctx;
  if (changes.new_email !== undefined && !(actor.role === ROLE.owner && hasSpecialPermission(actor, CAN_CHANGE_USER_EMAILS))) {
    throw new JsonableError("User not authorized to change user emails");
  }
  const roleChanges = changes.role !== undefined && changes.role !== user.role;
  if (roleChanges && changes.role !== undefined) checkRoleChange(actor, user, changes.role);
  const nameChanges = changes.full_name !== undefined && changes.full_name !== user.full_name && changes.full_name.trim() !== "";
  const fullName = nameChanges && changes.full_name !== undefined ? checkFullName(changes.full_name) : null;
  await withTransaction(ctx, async (tx, emit) => {
    if (roleChanges && user.role === ROLE.owner && user.is_active === 1 && user.is_bot === 0 && (await countActiveHumanOwners(tx, realm.id)) === 1) {
      throw new JsonableError("The owner permission cannot be removed from the only organization owner.");
    }
    const profile = changes.profile_data ? await validateProfileData(tx, realm.id, actor, changes.profile_data) : [];
    const newEmail = changes.new_email === undefined ? null : await checkNewEmail(tx, realm, user, changes.new_email);
    const recipients = await usersWhoCanAccess(tx, realm, user);
    const recipientIds = recipients.map((r) => r.id);
    const env = doEnv(ctx, emit);
    if (roleChanges && changes.role !== undefined) await doChangeUserRole(tx, env, user, changes.role, recipientIds);
    if (fullName !== null && fullName !== user.full_name) await doChangeFullName(tx, env, user, fullName, recipientIds);
    await doUpdateProfileData(tx, env, user, profile, recipientIds);
    if (newEmail !== null && newEmail !== user.delivery_email) await doChangeEmail(tx, env, user, newEmail, recipients);
  });
  return {};
}

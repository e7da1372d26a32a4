/**
 * Who may see and who may administer which users: Zulip's access_user_by_id family. Fetch and
 * authorize in one call, with the same error for a missing user and a hidden one.
 */
import { JsonableError } from "../errors.ts";
import { hasRealmPermission, isGuest, isRealmAdmin } from "./check.ts";
import { effectiveMemberIds, guestIdsOutsideGroup } from "../store/groups/group-membership.ts";
import { realmSettings, type RealmGroupSetting } from "./realm-settings.ts";
import { canSeeDeliveryEmail } from "./email-visibility.ts";
import { emailDomain } from "../model/emails.ts";
import type { Db } from "../store/schema/types.ts";
import type { RealmRow, UserRow } from "../store/schema/database.ts";
import { getUser, getUserByDeliveryEmail, idsInDirectConversationsWith, idsSharingSubscription, listUsers } from "../store/users/users.ts";
import type { AuthedCaller } from "./caller.ts";

/** What a caller may do with the user it fetches. */
type AccessOptions = { allowDeactivated?: boolean; allowBots?: boolean; forAdmin: boolean };

/** Active holders of a realm permission setting, through nested subgroups. */
async function realmPermissionHolders(db: Db, realm: RealmRow, setting: RealmGroupSetting): Promise<Set<number>> {
  return new Set(await effectiveMemberIds(db, realmSettings(realm)[setting]));
}

/** Whether the viewer sees every user: everyone but guests outside can_access_all_users_group. */
async function canAccessAllUsers(db: Db, realm: RealmRow, viewer: UserRow | null): Promise<boolean> {
  if (viewer === null || !isGuest(viewer)) return true;
  return hasRealmPermission(db, realm, viewer, "can_access_all_users_group");
}

/**
 * Those a restricted guest and `userId` may see of each other: users sharing a channel
 * subscription with it, or a direct conversation (one-to-one or group), as Zulip's
 * get_accessible_user_ids counts them.
 */
async function idsSharingWith(db: Db, realmId: number, userId: number): Promise<Set<number>> {
  const [channels, direct] = await Promise.all([idsSharingSubscription(db, realmId, userId), idsInDirectConversationsWith(db, realmId, userId)]);
  return new Set([...channels, ...direct]);
}

/** The users among `users` that the viewer may not access (bots are always accessible). */
export async function inaccessibleUserIds(db: Db, realm: RealmRow, viewer: UserRow | null, users: readonly UserRow[]): Promise<Set<number>> {
  if (viewer === null || (await canAccessAllUsers(db, realm, viewer))) return new Set();
  const sharing = await idsSharingWith(db, realm.id, viewer.id);
  return new Set(users.filter((u) => u.is_bot === 0 && u.id !== viewer.id && !sharing.has(u.id)).map((u) => u.id));
}

/**
 * Those among `userIds` who may not access `target` (Zulip's user_ids_without_access_to_sender):
 * guests outside can_access_all_users_group sharing no channel or direct conversation with it.
 * Where no such guest is among them (every realm that lets everyone access all users), this is
 * one cached read and no query.
 */
export async function idsWithoutAccessTo(db: Db, realm: RealmRow, target: Pick<UserRow, "id" | "is_bot">, userIds: Iterable<number>): Promise<Set<number>> {
  const out = new Set<number>();
  if (target.is_bot === 1) return out;
  const restricted = await guestIdsOutsideGroup(db, realm.id, realmSettings(realm).can_access_all_users_group);
  if (restricted.size === 0) return out;
  for (const id of userIds) if (id !== target.id && restricted.has(id)) out.add(id);
  if (out.size === 0) return out;
  for (const id of await idsSharingWith(db, realm.id, target.id)) out.delete(id);
  return out;
}

/** Active users who may access `target`: the recipients of events about it. */
export async function usersWhoCanAccess(db: Db, realm: RealmRow, target: UserRow): Promise<UserRow[]> {
  const active = (await listUsers(db, realm.id)).filter((u) => u.is_active === 1);
  if (target.is_bot === 1) return active;
  const unrestricted = await realmPermissionHolders(db, realm, "can_access_all_users_group");
  const sharing = await idsSharingWith(db, realm.id, target.id);
  return active.filter((u) => !isGuest(u) || u.id === target.id || unrestricted.has(u.id) || sharing.has(u.id));
}

/** Ids of the active users who may access `target`. */
export async function userIdsWhoCanAccess(db: Db, realm: RealmRow, target: UserRow): Promise<number[]> {
  return (await usersWhoCanAccess(db, realm, target)).map((u) => u.id);
}

/** Whether `actor` may administer `target`: administrators, and owners of their own bots. */
function canAdminUser(actor: UserRow, target: UserRow): boolean {
  return target.bot_owner_id === actor.id || isRealmAdmin(actor);
}

async function checkAccess(ctx: AuthedCaller, target: UserRow | undefined, opts: AccessOptions): Promise<UserRow> {
  if (!target || (target.is_bot === 1 && !opts.allowBots)) throw new JsonableError("No such user");
  if (target.is_active !== 1 && !opts.allowDeactivated) throw new JsonableError("User is deactivated");
  const allowed = opts.forAdmin
    ? canAdminUser(ctx.actor, target)
    : !(await inaccessibleUserIds(ctx.db, ctx.realm, ctx.actor, [target])).has(target.id);
  if (!allowed) throw new JsonableError("Insufficient permission");
  return target;
}

/** The realm's user with this id, if the actor may access it as asked; else BAD_REQUEST. */
export async function accessUserById(ctx: AuthedCaller, userId: number, opts: AccessOptions): Promise<UserRow> {
  return checkAccess(ctx, await getUser(ctx.db, ctx.realm.id, userId), opts);
}

/**
 * The user named by an email: the dummy `user{id}@{host}` form names any user by id; a real
 * address finds the user only if the actor may see that address (feature level 302).
 */
export async function accessUserByEmail(ctx: AuthedCaller, email: string, opts: AccessOptions): Promise<UserRow> {
  const dummy = /^user(\d+)@(.+)$/i.exec(email.trim());
  if (dummy && dummy[2].toLowerCase() === emailDomain(ctx.config.externalUrl).toLowerCase()) {
    return accessUserById(ctx, Number(dummy[1]), opts);
  }
  const target = await getUserByDeliveryEmail(ctx.db, ctx.realm.id, email);
  if (target && !canSeeDeliveryEmail(ctx.actor, target)) throw new JsonableError("No such user");
  return checkAccess(ctx, target, opts);
}

/** A bot the actor administers (its owner or an administrator). */
export async function accessBotById(ctx: AuthedCaller, botId: number): Promise<UserRow> {
  const bot = await getUser(ctx.db, ctx.realm.id, botId);
  if (!bot || bot.is_bot !== 1) throw new JsonableError("No such bot");
  if (!canAdminUser(ctx.actor, bot)) throw new JsonableError("Insufficient permission");
  return bot;
}

/** Users who administer a bot and so receive its realm_bot events: active administrators and its owner. */
export async function botAdministratorIds(db: Db, realm: RealmRow, bot: UserRow): Promise<number[]> {
  const users = await listUsers(db, realm.id);
  return users.filter((u) => u.is_active === 1 && u.is_bot === 0 && (isRealmAdmin(u) || u.id === bot.bot_owner_id)).map((u) => u.id);
}

/** Deactivating users (by an administrator or oneself) and reactivating them. */
import type { Transaction } from "kysely";
import { CannotDeactivateLastUserError, JsonableError, OwnerRequiredError } from "../../errors.ts";
import { ROLE } from "../../model/roles.ts";
import { realmBotUpdateEvent } from "../../events/kinds/bots.ts";
import { realmUserRemoveEvent, realmUserUpdateEvent } from "../../events/kinds/users.ts";
import type { Database, UserRow } from "../../store/schema/database.ts";
import { activeNameTaken, countActiveHumanOwners, countActiveUsers, getUser, setUsersActive } from "../../store/users/users.ts";
import { doDeactivateUser } from "./credentials.ts";
import { emitExportConsent } from "./export-consent.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import { checkCanCreateBot, checkMemberOrAdmin } from "./bots.ts";
import { isGuest } from "../../permissions/check.ts";
import { accessBotById, accessUserById, botAdministratorIds, inaccessibleUserIds, usersWhoCanAccess } from "../../permissions/user-access.ts";

/**
 * Tells those who can access the account (and, for a bot, those who administer it) its new
 * state. A deactivated user stops being reachable through shared channels, so guests who saw
 * them only that way get `realm_user` `remove` instead (Zulip's send_events_for_user_deactivation).
 */
async function emitActiveChange(tx: Transaction<Database>, ctx: AuthedCtx, user: UserRow, isActive: boolean, emit: Emit): Promise<void> {
  const audience = await usersWhoCanAccess(tx, ctx.realm, user);
  const losing = new Set<number>();
  if (!isActive) {
    for (const viewer of audience.filter(isGuest)) {
      if ((await inaccessibleUserIds(tx, ctx.realm, viewer, [user])).has(user.id)) losing.add(viewer.id);
    }
  }
  emit(realmUserUpdateEvent(user.id, { is_active: isActive }), audience.map((u) => u.id).filter((id) => !losing.has(id)));
  emit(realmUserRemoveEvent(user.id), losing);
  if (user.is_bot === 1) emit(realmBotUpdateEvent(user.id, { is_active: isActive }), await botAdministratorIds(tx, ctx.realm, user));
  if (isActive) await emitExportConsent(tx, ctx.realm.id, user, emit);
}

/** Deactivates a user and the active bots it owns (bots first, as Zulip does), with their events. */
async function deactivateWithEvents(tx: Transaction<Database>, ctx: AuthedCtx, user: UserRow, emit: Emit): Promise<void> {
  const [own, ...bots] = await doDeactivateUser(tx, ctx, user);
  for (const id of [...bots, own]) {
    const row = await getUser(tx, ctx.realm.id, id);
    if (row) await emitActiveChange(tx, ctx, row, false, emit);
  }
}

/** DELETE /users/{user_id}: an administrator deactivates a (human) user; only owners touch owners. */
export async function deactivateUser(ctx: AuthedCtx, userId: number): Promise<Record<string, never>> {
  const target = await accessUserById(ctx, userId, { forAdmin: true });
  if (target.role === ROLE.owner && ctx.actor.role !== ROLE.owner) throw new OwnerRequiredError();
  await withTransaction(ctx, async (tx, emit) => {
    if (target.role === ROLE.owner && (await countActiveHumanOwners(tx, ctx.realm.id)) === 1) {
      throw new JsonableError("Cannot deactivate the only organization owner");
    }
    await deactivateWithEvents(tx, ctx, target, emit);
  });
  return {};
}

/** DELETE /users/me: the caller deactivates its own account, unless it is the last user or owner. */
export async function deactivateOwnUser(ctx: AuthedCtx): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    if ((await countActiveUsers(tx, ctx.realm.id)) === 1) throw new CannotDeactivateLastUserError(false);
    if (ctx.actor.role === ROLE.owner && ctx.actor.is_bot === 0 && (await countActiveHumanOwners(tx, ctx.realm.id)) === 1) {
      throw new CannotDeactivateLastUserError(true);
    }
    await deactivateWithEvents(tx, ctx, ctx.actor, emit);
  });
  return {};
}

/** POST /users/{user_id}/reactivate: administrators, or a bot's owner if it may still create such bots. */
export async function reactivateUser(ctx: AuthedCtx, userId: number): Promise<Record<string, never>> {
  const target = await accessUserById(ctx, userId, { allowDeactivated: true, allowBots: true, forAdmin: true });
  if (target.is_active === 1) throw new JsonableError("User is already active.");
  if (target.is_bot === 1 && target.bot_type !== null) await checkCanCreateBot(ctx, target.bot_type);
  await withTransaction(ctx, async (tx, emit) => {
    if (target.is_bot === 1 && (await activeNameTaken(tx, ctx.realm.id, target.full_name))) {
      throw new JsonableError(
        `There is already an active bot named "${target.full_name}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
      );
    }
    await setUsersActive(tx, ctx.realm.id, [target.id], true);
    await emitActiveChange(tx, ctx, { ...target, is_active: 1 }, true, emit);
  });
  return {};
}

/** DELETE /bots/{bot_id}: the bot's owner or an administrator deactivates it (again: nothing happens). */
export async function deactivateBot(ctx: AuthedCtx, botId: number): Promise<Record<string, never>> {
  checkMemberOrAdmin(ctx.actor);
  const bot = await accessBotById(ctx, botId);
  if (bot.is_active === 1) await withTransaction(ctx, (tx, emit) => deactivateWithEvents(tx, ctx, bot, emit));
  return {};
}

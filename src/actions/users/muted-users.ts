/**
 * Muting users (Zulip's zerver/views/muted_users.py and actions/muted_users.py): a mute marks
 * the muted user's messages read for the muter, now and on every later send (send.ts asks
 * mutersOf); each change sends the caller their whole new list.
 */
import { nowSeconds } from "../../clock.ts";
import { mutedUsersEvent } from "../../events/kinds/alert-words.ts";
import { updateMessageFlagsEvent } from "../../events/kinds/message-flags.ts";
import { JsonableError } from "../../errors.ts";
import { accessUserById } from "../../permissions/user-access.ts";
import { presentMutedUsers } from "../../present/muted-users.ts";
import { flagStates, writeFlagBits } from "../../store/messages/flag-writes.ts";
import { deleteMute, getMute, insertMute, listMutedUsers, unreadMessagesFrom } from "../../store/users/muted-users.ts";
import { MESSAGE_FLAG, type UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { doRemoveReadNotifications } from "../push/removals.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";

/** Bots and deactivated users may be muted too, as in Zulip. */
const MUTE_TARGET = { allowBots: true, allowDeactivated: true, forAdmin: false } as const;

/** Zulip's do_mark_muted_user_messages_as_read: the user's unread messages from `senderId` become read, with one event. */
async function doMarkMessagesFromRead(tx: Db, env: Pick<DoEnv, "emit" | "realm" | "config">, user: UserRow, senderId: number): Promise<void> {
  const messages = await unreadMessagesFrom(tx, user.realm_id, user.id, senderId);
  if (messages.length === 0) return;
  const states = await flagStates(tx, user.id, messages);
  await writeFlagBits(tx, user.id, [...states].map(([messageId, s]) => ({ messageId, bits: s.bits | MESSAGE_FLAG.read, defaultBits: s.defaultBits })));
  await doRemoveReadNotifications(tx, env, user, messages.map((m) => m.id));
  env.emit(updateMessageFlagsEvent("add", "read", messages.map((m) => m.id)), [user.id]);
}

/** The caller's `muted_users` event, with their mutes as they now stand. */
async function emitMutedUsers(tx: Db, env: Pick<DoEnv, "emit">, user: UserRow): Promise<void> {
  env.emit(mutedUsersEvent(presentMutedUsers(await listMutedUsers(tx, user.realm_id, user.id))), [user.id]);
}

/** POST /users/me/muted_users/{muted_user_id}. */
export async function muteUser(ctx: AuthedCtx, mutedUserId: number): Promise<void> {
  if (mutedUserId === ctx.actor.id) throw new JsonableError("Cannot mute self");
  const target = await accessUserById(ctx, mutedUserId, MUTE_TARGET);
  await withTransaction(ctx, async (tx, emit) => {
    const row = { realm_id: ctx.realm.id, user_id: ctx.actor.id, muted_user_id: target.id, date_muted: nowSeconds(ctx.clock) };
    if (!(await insertMute(tx, row))) throw new JsonableError("User already muted");
    await doMarkMessagesFromRead(tx, doEnv(ctx, emit), ctx.actor, target.id);
    await emitMutedUsers(tx, { emit }, ctx.actor);
  });
}

/** DELETE /users/me/muted_users/{muted_user_id}. */
export async function unmuteUser(ctx: AuthedCtx, mutedUserId: number): Promise<void> {
  const target = await accessUserById(ctx, mutedUserId, MUTE_TARGET);
  await withTransaction(ctx, async (tx, emit) => {
    const mute = await getMute(tx, ctx.realm.id, ctx.actor.id, target.id);
    if (!mute) throw new JsonableError("User is not muted");
    await deleteMute(tx, ctx.realm.id, mute.id);
    await emitMutedUsers(tx, { emit }, ctx.actor);
  });
}

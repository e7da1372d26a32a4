/**
 * POST /users/me/status and GET /users/{user_id}/status (Zulip's update_user_status_backend):
 * status text, status emoji, and the deprecated `away` that mirrors presence_enabled (FL 148).
 */
import { JsonableError } from "../../errors.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import { presentUserStatus, type ApiUserStatus } from "../../present/organization.ts";
import { userStatusEvent, type UserStatusChange } from "../../events/kinds/organization.ts";
import { updateGlobalNotificationsEvent, userSettingsUpdateEvent } from "../../events/kinds/user-settings.ts";
import type { Db } from "../../store/schema/types.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { getUserStatus, presenceEnabled, setPresenceEnabled, upsertUserStatus, type StatusPatch } from "../../store/users/user-status.ts";
import { nowSeconds } from "../../clock.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { checkEmoji, EMOJI_TYPE, emojiByName, type EmojiRef } from "../emoji/check.ts";
import { accessUserById, userIdsWhoCanAccess } from "../../permissions/user-access.ts";
import { doUpdatePresenceEnabled } from "./presence.ts";
import type { PresenceWriteBehind } from "../../store/users/presence-write-behind.ts";

/** What POST /users/me/status accepts; absent keys are left unchanged. */
type StatusInput = { away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };

/** SPEC.md's limit on status_text, in characters (after trimming, as Zulip counts). */
const STATUS_TEXT_LIMIT = 60;

/**
 * The emoji change a request asks for: null for none; an empty name clears the emoji; a name
 * alone takes the current code and type for that name.
 */
async function resolveEmoji(db: Db, realmId: number, input: StatusInput): Promise<EmojiRef | null> {
  const name = input.emoji_name;
  if (name === undefined) {
    if ((input.emoji_code ?? "") !== "" || (input.reaction_type ?? "") !== "") {
      throw new JsonableError("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
    }
    return null;
  }
  if (name === "") return { name: "", code: "", type: EMOJI_TYPE.unicode };
  const known = input.emoji_code === undefined || input.reaction_type === undefined ? await emojiByName(db, realmId, name) : null;
  const emoji = { name, code: input.emoji_code ?? known?.code ?? "", type: input.reaction_type ?? known?.type ?? "" };
  await checkEmoji(db, realmId, emoji);
  return emoji;
}

/** Changes the caller's status; only passed values change, and every change is announced. */
export async function updateOwnStatus(ctx: AuthedCtx, presenceWrites: PresenceWriteBehind, input: StatusInput): Promise<Record<string, never>> {
  if (ctx.actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
  return changeStatus(ctx, presenceWrites, ctx.actor, input);
}

/** POST /users/{user_id}/status (FL 407): an administrator changes another user's status (no `away`). */
export async function updateStatusForUser(ctx: AuthedCtx, userId: number, input: Omit<StatusInput, "away">): Promise<Record<string, never>> {
  if (ctx.actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
  const target = await accessUserById(ctx, userId, { forAdmin: true });
  return changeStatus(ctx, null, target, input);
}

/**
 * Changes `actor`'s status (the caller's own, or a user an administrator names, whose input has
 * no `away`: `presenceWrites` is null only then).
 */
async function changeStatus(ctx: AuthedCtx, presenceWrites: PresenceWriteBehind | null, actor: UserRow, input: StatusInput): Promise<Record<string, never>> {
  const { realm } = ctx;
  const statusText = input.status_text?.trim();
  if (statusText !== undefined && [...statusText].length > STATUS_TEXT_LIMIT) {
    throw new JsonableError(`status_text is too long (limit: ${STATUS_TEXT_LIMIT} characters)`);
  }
  if (input.away === undefined && statusText === undefined && input.emoji_name === undefined) {
    throw new JsonableError("Client did not pass any new values.");
  }
  const emoji = await resolveEmoji(ctx.db, realm.id, input);
  await withTransaction(ctx, async (tx, emit) => {
    const change: UserStatusChange = {};
    if (input.away !== undefined && presenceWrites !== null) {
      // Deprecated (FL 148): `away` sets presence_enabled, announced as that setting's change.
      await setPresenceEnabled(tx, realm.id, actor.id, !input.away);
      await doUpdatePresenceEnabled(tx, { presenceWrites, ...doEnv(ctx, emit) }, actor, !input.away);
      emit(userSettingsUpdateEvent("presence_enabled", !input.away), [actor.id]);
      emit(updateGlobalNotificationsEvent(apiEmail(actor, emailDomain(ctx.config.externalUrl)), "presence_enabled", !input.away), [actor.id]);
      change.away = input.away;
    }
    const patch: StatusPatch = {};
    if (statusText !== undefined) patch.status_text = change.status_text = statusText;
    if (emoji !== null) {
      Object.assign(patch, { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type });
      Object.assign(change, { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type });
    }
    await upsertUserStatus(tx, realm.id, actor.id, patch, nowSeconds(ctx.clock));
    emit(userStatusEvent(actor.id, change), await userIdsWhoCanAccess(tx, realm, actor));
  });
  return {};
}

/** A user's status as the caller may see it: an empty object when none is set. */
export async function getStatus(ctx: AuthedCtx, userId: number): Promise<{ status: ApiUserStatus }> {
  const target = await accessUserById(ctx, userId, { forAdmin: false });
  const row = await getUserStatus(ctx.db, ctx.realm.id, target.id);
  return { status: row ? presentUserStatus(row, presenceEnabled(target)) : {} };
}

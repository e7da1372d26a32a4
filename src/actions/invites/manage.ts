/**
 * Managing invitations (GET /invites, DELETE /invites/{id}, DELETE /invites/multiuse/{id},
 * POST /invites/{id}/resend): administrators manage all, others their own (Zulip's
 * do_get_invites_controlled_by_user and access_invite_by_id).
 */
import { nowSeconds } from "../../clock.ts";
import { JsonableError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { presentInvite } from "../../present/invites.ts";
import { randomAlphanumeric, tokenDigest } from "../../secrets.ts";
import { changeInviteStatus, openInvites, setInviteTokenHash } from "../../store/users/invites.ts";
import { INVITE_STATUS } from "../../store/schema/invites.ts";
import { getUser } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { accessInviteById, checkMemberOrAdmin, emitInvitesChanged } from "./access.ts";
import { checkInviteLimit } from "./create.ts";
import { doQueueInviteEmail } from "./email.ts";

/** GET /invites: the open, unexpired invitations the caller manages, email invitations first. */
export async function getInvites(ctx: AuthedCtx): Promise<{ invites: Record<string, unknown>[] }> {
  checkMemberOrAdmin(ctx.actor);
  const rows = await openInvites(ctx.db, ctx.realm.id, nowSeconds(ctx.clock), isRealmAdmin(ctx.actor) ? null : ctx.actor.id);
  const ordered = [...rows.filter((r) => r.is_multiuse === 0), ...rows.filter((r) => r.is_multiuse === 1)];
  return { invites: ordered.map((r) => presentInvite(r, ctx.config.externalUrl)) };
}

/** Revokes one invitation of the kind named; `gone` is the error when another request revoked (or used) it first. */
async function revoke(ctx: AuthedCtx, id: number, multiuse: boolean, gone: string): Promise<Record<string, never>> {
  const invite = await accessInviteById(ctx, id, multiuse);
  await withTransaction(ctx, async (tx, emit) => {
    if (!(await changeInviteStatus(tx, ctx.realm.id, invite.id, INVITE_STATUS.active, INVITE_STATUS.revoked))) throw new JsonableError(gone);
    await emitInvitesChanged(tx, ctx, emit, invite.invited_by);
  });
  return {};
}

/** DELETE /invites/{invite_id}: revokes an email invitation; its link stops working. */
export function revokeInvite(ctx: AuthedCtx, id: number): Promise<Record<string, never>> {
  return revoke(ctx, id, false, "No such invitation");
}

/** DELETE /invites/multiuse/{invite_id}: revokes a reusable link. */
export function revokeMultiuseInvite(ctx: AuthedCtx, id: number): Promise<Record<string, never>> {
  return revoke(ctx, id, true, "Invitation has already been revoked");
}

/**
 * POST /invites/{invite_id}/resend: mails the invitation again (when SMTP_URL is set). Only its
 * token's digest is kept, so the new email carries a fresh link and the old link stops working;
 * the expiry stays. The changed link is announced with invites_changed (upstream sends none),
 * which also wakes the email worker at once.
 */
export async function resendInvite(ctx: AuthedCtx, id: number): Promise<Record<string, never>> {
  const invite = await accessInviteById(ctx, id, false);
  await checkInviteLimit(ctx, 1);
  await withTransaction(ctx, async (tx, emit) => {
    const inviter = await getUser(tx, ctx.realm.id, invite.invited_by);
    if (!inviter) throw new JsonableError("No such invitation");
    const token = randomAlphanumeric(32);
    await setInviteTokenHash(tx, ctx.realm.id, invite.id, tokenDigest(token));
    await doQueueInviteEmail(tx, ctx, invite, token, inviter);
    await emitInvitesChanged(tx, ctx, emit, invite.invited_by);
  });
  return {};
}

/**
 * The checks invitations share (Zulip's zerver/views/invite.py): who may invite, which roles
 * and channels they may invite to, which invitations they may manage, and who hears of changes.
 */
import { InvalidInviteError, JsonableError, OwnerRequiredError, PermissionDeniedError } from "../../errors.ts";
import { invitesChangedEvent } from "../../events/kinds/invites.ts";
import { hasRealmPermission, isGuest, isRealmAdmin } from "../../permissions/check.ts";
import type { RealmGroupSetting } from "../../permissions/realm-settings.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { getInvite, inviteByTokenHash } from "../../store/users/invites.ts";
import { ROLE } from "../../model/roles.ts";
import { INVITE_STATUS, type InviteRow } from "../../store/schema/invites.ts";
import type { StreamRow, UserRow } from "../../store/schema/database.ts";
import { activeRealmMembers } from "../../store/channels/subscriptions.ts";
import type { Db } from "../../store/schema/types.ts";
import { nowSeconds } from "../../clock.ts";
import { tokenDigest } from "../../secrets.ts";
import type { ActionCtx, AuthedCtx, Emit } from "../context.ts";
import { isDefaultStream } from "../channels/default-streams.ts";
import { canAddSubscribers } from "../channels/subscribe.ts";

/** The roles an invitation may give (Zulip's PreregistrationUser.INVITE_AS). */
export const INVITE_ROLES: readonly number[] = [ROLE.owner, ROLE.administrator, ROLE.moderator, ROLE.member, ROLE.guest];

/** Zulip's require_member_or_admin: guests and bots may not manage invitations. */
export function checkMemberOrAdmin(actor: UserRow): void {
  if (isGuest(actor)) throw new JsonableError("Not allowed for guest users");
  if (actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
}

/** Refuses a caller outside the realm group that may send this kind of invitation. */
export async function checkCanInvite(ctx: AuthedCtx, setting: Extract<RealmGroupSetting, "can_invite_users_group" | "create_multiuse_invite_group">): Promise<void> {
  checkMemberOrAdmin(ctx.actor);
  if (!(await hasRealmPermission(ctx.db, ctx.realm, ctx.actor, setting))) throw new PermissionDeniedError();
}

/**
 * Zulip's check_role_based_permissions: only owners touch owner invitations; `requireAdmin`
 * (inviting an administrator or moderator, or managing someone else's invitation) needs an
 * administrator.
 */
export function checkInviteRole(actor: UserRow, invitedAs: number, requireAdmin: boolean): void {
  if (invitedAs === ROLE.owner && actor.role !== ROLE.owner) throw new OwnerRequiredError();
  if (requireAdmin && !isRealmAdmin(actor)) throw new JsonableError("Must be an organization administrator");
}

/** Whether inviting with this role needs an administrator (owners, administrators, moderators). */
export function roleNeedsAdmin(invitedAs: number): boolean {
  return invitedAs === ROLE.owner || invitedAs === ROLE.administrator || invitedAs === ROLE.moderator;
}

/**
 * The channels an invitation subscribes its user to: each one the caller can access, and either
 * a default channel or one the caller may add subscribers to (Zulip's access_streams_for_invite, FL 342).
 */
export async function accessStreamsForInvite(ctx: AuthedCtx, streamIds: readonly number[]): Promise<StreamRow[]> {
  const streams: StreamRow[] = [];
  for (const id of new Set(streamIds)) {
    try {
      streams.push((await accessStreamById(ctx, id)).stream);
    } catch (err) {
      if (!(err instanceof JsonableError)) throw err;
      throw new JsonableError(`Invalid channel ID ${id}. No invites were sent.`);
    }
  }
  for (const stream of streams) {
    if (await isDefaultStream(ctx.db, ctx.realm.id, stream.id)) continue;
    if (!(await canAddSubscribers(ctx, ctx.db, stream))) throw new JsonableError("You do not have permission to subscribe other users to channels.");
  }
  return streams;
}

/**
 * An invitation the caller may manage (Zulip's access_invite_by_id / access_multiuse_invite_by_id):
 * their own, or any as an administrator (owner invitations: owners only). Email invitations are
 * found while open; a revoked link says so.
 */
export async function accessInviteById(ctx: AuthedCtx, id: number, multiuse: boolean): Promise<InviteRow> {
  checkMemberOrAdmin(ctx.actor);
  const invite = await getInvite(ctx.db, ctx.realm.id, id);
  // A sign-up confirmation is the visitor's, not an invitation anyone manages.
  const found = invite && invite.multiuse_invite_id === null && invite.is_multiuse === (multiuse ? 1 : 0) && (multiuse || invite.status === INVITE_STATUS.active);
  if (!invite || !found) throw new JsonableError("No such invitation");
  if (invite.invited_by !== ctx.actor.id) checkInviteRole(ctx.actor, invite.invited_as, true);
  if (invite.status === INVITE_STATUS.revoked) throw new JsonableError("Invitation has already been revoked");
  return invite;
}

/**
 * The open invitation a link's token names in this realm; unknown, expired, revoked and used ones
 * are refused alike, and so is a sign-up confirmation whose reusable link was revoked since.
 */
export async function inviteByToken(ctx: ActionCtx, db: Db, token: string): Promise<InviteRow> {
  const invite = await inviteByTokenHash(db, tokenDigest(token));
  if (!invite || invite.realm_id !== ctx.realm.id) throw new InvalidInviteError(false);
  const expired = invite.expires_at !== null && invite.expires_at < nowSeconds(ctx.clock);
  if (expired || invite.status !== INVITE_STATUS.active) throw new InvalidInviteError(true);
  if (invite.multiuse_invite_id !== null && (await getInvite(db, ctx.realm.id, invite.multiuse_invite_id))?.status !== INVITE_STATUS.active) {
    throw new InvalidInviteError(true);
  }
  return invite;
}

/** Zulip's notify_invites_changed: the realm's administrators (bots too) and the invitation's creator refetch. */
export async function emitInvitesChanged(tx: Db, ctx: ActionCtx, emit: Emit, invitedBy: number): Promise<void> {
  const admins = (await activeRealmMembers(tx, ctx.realm.id)).filter((m) => isRealmAdmin(m)).map((m) => m.id);
  emit(invitesChangedEvent(), [...admins, invitedBy]);
}

/**
 * Accepting an invitation (the web app's sign-up page; Zulip's registration views with a
 * confirmation key): unauthenticated, the link's token names the invitation. Reading it tells
 * the page what to show; registering creates the account as POST /users does, with the
 * invitation's role and channels, and uses up a single-use invitation. A reusable link takes the
 * address the visitor types: with SMTP_URL set, only through a sign-up confirmation mailed to it
 * (signup-confirmation.ts); without, directly, the address unconfirmed (README.md says so).
 */
import { nowSeconds } from "../../clock.ts";
import { EmailConfirmationRequiredError, InvalidInviteError, JsonableError, MissingArgumentError } from "../../errors.ts";
import { changeInviteStatus, hasOpenEmailInvite, revokeEmailInvitesTo } from "../../store/users/invites.ts";
import { INVITE_STATUS, type InviteRow } from "../../store/schema/invites.ts";
import type { StreamRow, UserRow } from "../../store/schema/database.ts";
import { getStreamsByIds } from "../../store/channels/streams.ts";
import type { Db } from "../../store/schema/types.ts";
import { getUser, getUserByDeliveryEmail } from "../../store/users/users.ts";
import { doEnv, withTransaction, type ActionCtx, type DoEnv } from "../context.ts";
import { activeDefaultStreams, doJoinStreams } from "../channels/default-streams.ts";
import { emitPeerEvent } from "../channels/subscriptions.ts";
import { doSendDirectNotice, silentMention } from "../messages/notification-bot.ts";
import { checkFullName, checkPassword, emitUserAdded, isEmailAddress } from "../users/accounts.ts";
import { doCreateUser } from "../users/create.ts";
import { doWelcomeNewUser } from "../onboarding/welcome-bot.ts";
import { realmEmailRule } from "../users/email-rules.ts";
import { emitInvitesChanged, inviteByToken } from "./access.ts";
import { emitExportConsent } from "../users/export-consent.ts";

/**
 * The sign-up page's view of an invitation; `email_confirmation`: the link signs up only an
 * address confirmed by email (POST .../confirm_email), not through POST .../register.
 */
type InviteSummary = { realm_name: string; email: string | null; is_multiuse: boolean; invited_as: number; expiry_date: number | null; streams: string[]; email_confirmation: boolean };

/** POST .../register's parameters. */
export type RegisterInput = { full_name: string; password: string; email?: string };

/** Whether a reusable link must have the visitor's address confirmed by email first (it can be mailed). */
export function needsEmailConfirmation(ctx: ActionCtx, invite: InviteRow): boolean {
  return invite.is_multiuse === 1 && ctx.config.smtp !== null;
}

/** The active channels a new user of this invitation joins: the invitation's, then (when it says so) the defaults. */
async function invitedStreams(db: Db, realmId: number, invite: InviteRow): Promise<StreamRow[]> {
  const ids = JSON.parse(invite.stream_ids) as number[];
  const own = (await getStreamsByIds(db, realmId, ids)).filter((s) => s.is_archived === 0);
  const defaults = invite.include_realm_default_subscriptions === 1 ? await activeDefaultStreams(db, realmId) : [];
  return [...new Map([...own, ...defaults].map((s) => [s.id, s])).values()];
}

/** GET /invites/accept/{token}: what the invitation is for, or INVALID_INVITE. */
export async function getInviteForSignup(ctx: ActionCtx, token: string): Promise<InviteSummary> {
  const invite = await inviteByToken(ctx, ctx.db, token);
  const streams = await invitedStreams(ctx.db, ctx.realm.id, invite);
  return {
    realm_name: ctx.realm.name,
    email: invite.email,
    is_multiuse: invite.is_multiuse === 1,
    invited_as: invite.invited_as,
    expiry_date: invite.expires_at,
    streams: streams.map((s) => s.name).sort((a, b) => a.localeCompare(b)),
    email_confirmation: needsEmailConfirmation(ctx, invite),
  };
}

/** The address the account gets: the invitation's own, or (for a reusable link) the one given, which must have an address's shape. */
function signupEmail(invite: InviteRow, given: string | undefined): string {
  if (invite.email !== null) {
    if (given !== undefined && given.trim().toLowerCase() !== invite.email.toLowerCase()) throw new JsonableError("This invitation is for a different email address.");
    return invite.email;
  }
  if (given === undefined) throw new MissingArgumentError("email");
  const email = given.trim();
  if (!isEmailAddress(email)) throw new JsonableError("Enter a valid email address.");
  return email;
}

/**
 * Refuses an address the organization does not take (allowed domains, disposable providers), in
 * the words of upstream's sign-up form (HomepageForm); checked again when the account is made,
 * as the rules may have changed since an invitation or a confirmation was sent.
 */
async function checkAddressAllowed(ctx: ActionCtx, db: Db, email: string): Promise<void> {
  const refusal = (await realmEmailRule(db, ctx.realm))(email);
  if (refusal === "outside_domains") {
    throw new JsonableError(`Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`);
  }
  if (refusal === "disposable") throw new JsonableError("Please use your real email address.");
  if (refusal === "plus") throw new JsonableError("Email addresses containing + are not allowed in this organization.");
}

/**
 * Refuses an address that has an account, and (`invite` a reusable link, whose visitor chose the
 * address) one with an open email invitation: its invitee signs up through their own link, with
 * the role and channels it gives, and a link must not take the address over.
 */
export async function checkAddressFree(ctx: ActionCtx, db: Db, invite: InviteRow, email: string): Promise<void> {
  const existing = await getUserByDeliveryEmail(db, ctx.realm.id, email);
  if (existing) throw new JsonableError(existing.is_active === 1 ? `${email} already has an account` : "Account has been deactivated.");
  if (invite.is_multiuse === 1 && (await hasOpenEmailInvite(db, ctx.realm.id, email, nowSeconds(ctx.clock)))) {
    throw new JsonableError(`${email} has a pending invitation: sign up through the link it was sent, or ask an administrator to revoke it.`);
  }
}

/** The address a reusable link's visitor typed, checked against the organization's rules; for POST .../confirm_email too. */
export async function checkVisitorAddress(ctx: ActionCtx, invite: InviteRow, given: string | undefined): Promise<string> {
  const email = signupEmail(invite, given);
  await checkAddressAllowed(ctx, ctx.db, email);
  return email;
}

/** Tells the inviter their invitation was accepted, when they asked to be (Zulip's notify_referrer_on_join). */
async function doNotifyReferrer(tx: Db, env: DoEnv, invite: InviteRow, user: UserRow): Promise<void> {
  if (invite.is_multiuse === 1 || invite.notify_referrer_on_join !== 1) return;
  const referrer = await getUser(tx, env.realm.id, invite.invited_by);
  if (!referrer || referrer.is_active !== 1) return;
  await doSendDirectNotice(tx, env, referrer, `${silentMention(user)} accepted your invitation to join ${env.realm.name}!`);
}

/**
 * POST /invites/accept/{token}/register: creates the account with the invitation's role,
 * subscribed to its channels, with the events POST /users sends; a single-use invitation is used
 * up (and other open invitations to the address revoked). The caller then logs in.
 */
export async function registerWithInvite(ctx: ActionCtx, token: string, input: RegisterInput): Promise<{ user_id: number; email: string }> {
  const found = await inviteByToken(ctx, ctx.db, token);
  if (needsEmailConfirmation(ctx, found)) throw new EmailConfirmationRequiredError();
  const email = await checkVisitorAddress(ctx, found, input.email);
  const fullName = checkFullName(input.full_name);
  checkPassword(input.password);
  return withTransaction(ctx, async (tx, emit) => {
    const invite = await inviteByToken(ctx, tx, token);
    await checkAddressFree(ctx, tx, invite, email);
    if (invite.is_multiuse === 0 && !(await changeInviteStatus(tx, ctx.realm.id, invite.id, INVITE_STATUS.active, INVITE_STATUS.used))) throw new InvalidInviteError(true);
    const streams = await invitedStreams(tx, ctx.realm.id, invite);
    const user = await doCreateUser(tx, ctx, { email, fullName, role: invite.invited_as, password: input.password, joinDefaultStreams: false });
    await doJoinStreams(tx, ctx, user, streams);
    const asUser = doEnv(ctx, emit, user, ctx.client);
    await emitUserAdded(tx, asUser, ctx.realm, user, emit);
    for (const stream of streams) await emitPeerEvent(asUser, tx, emit, "peer_add", stream, [user.id]);
    await revokeEmailInvitesTo(tx, ctx.realm.id, email, invite.id);
    await doNotifyReferrer(tx, doEnv(ctx, emit), invite, user);
    await doWelcomeNewUser(tx, doEnv(ctx, emit), user, invite.welcome_message_custom_text);
    await emitExportConsent(tx, ctx.realm.id, user, emit);
    await emitInvitesChanged(tx, ctx, emit, invite.invited_by);
    return { user_id: user.id, email };
  });
}

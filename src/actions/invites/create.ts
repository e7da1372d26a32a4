/**
 * Sending invitations (Zulip's zerver/actions/invites.py, do_invite_users and
 * do_create_multiuse_invite_link): POST /invites writes one single-use invitation per address
 * and queues its email; POST /invites/multiuse writes a reusable link and returns it.
 */
import { nowSeconds } from "../../clock.ts";
import { InvitationError, JsonableError, type InvitationSkip } from "../../errors.ts";
import { inviteLinkUrl } from "../../present/invites.ts";
import { randomAlphanumeric, tokenDigest } from "../../secrets.ts";
import { countEmailInvitesSince, insertInvite } from "../../store/users/invites.ts";
import type { InviteRow } from "../../store/schema/invites.ts";
import type { Db } from "../../store/schema/types.ts";
import { usersByIdsOrEmails } from "../../store/users/users.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { isEmailAddress } from "../users/accounts.ts";
import { ADDRESS_REFUSALS, realmEmailRule } from "../users/email-rules.ts";
import { accessStreamsForInvite, checkCanInvite, checkInviteRole, emitInvitesChanged, roleNeedsAdmin } from "./access.ts";
import { doQueueInviteEmail } from "./email.ts";

/** What both kinds of invitation take (wire names). */
type InviteOptions = {
  invite_expires_in_minutes: number | null;
  invite_as: number;
  stream_ids: number[];
  include_realm_default_subscriptions: boolean;
  /** FL 416, administrators only: the Welcome Bot's custom text for who joins through it (absent or null: the organization's; "": none). */
  welcome_message_custom_text?: string | null;
};

/** POST /invites's parameters. */
export type InviteUsersInput = InviteOptions & { invitee_emails: string; notify_referrer_on_join: boolean };

/** Zulip's INVITES_MIN_USER_AGE_DAYS: where no invitation is needed to join, newer accounts (not administrators) may not invite. */
const MIN_INVITER_AGE_SECONDS = 3 * 24 * 3600;
const DAY_SECONDS = 24 * 3600;

/** The addresses of `invitee_emails`: separated by commas or newlines, `Name <address>` taken as the address. */
function inviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    const email = (named ? named[1] : part).trim();
    if (email !== "") out.add(email);
  }
  return [...out];
}

/** What an invitation is written with: its options, whether its user's joining is told to the inviter, and (a sign-up confirmation) the reusable link it came from. */
export type NewInviteOptions = InviteOptions & { notify: boolean; multiuseInviteId?: number };

/** Writes one invitation with a fresh token (kept only as a digest, except a reusable link's). */
export async function doCreateInvite(tx: Db, env: Pick<DoEnv, "realm" | "clock">, inviterId: number, email: string | null, opts: NewInviteOptions): Promise<{ invite: InviteRow; token: string }> {
  const token = randomAlphanumeric(32);
  const now = nowSeconds(env.clock);
  const minutes = opts.invite_expires_in_minutes;
  const invite = await insertInvite(tx, {
    realm_id: env.realm.id,
    invited_by: inviterId,
    email,
    is_multiuse: email === null ? 1 : 0,
    invited_as: opts.invite_as,
    stream_ids: JSON.stringify(opts.stream_ids),
    include_realm_default_subscriptions: opts.include_realm_default_subscriptions ? 1 : 0,
    notify_referrer_on_join: opts.notify ? 1 : 0,
    token_hash: tokenDigest(token),
    link_token: email === null ? token : null,
    invited_at: now,
    expires_at: minutes === null ? null : now + minutes * 60,
    multiuse_invite_id: opts.multiuseInviteId ?? null,
    welcome_message_custom_text: opts.welcome_message_custom_text ?? null,
  });
  return { invite, token };
}

/** Only administrators choose an invitation's welcome text (upstream refuses it from others, in these words). */
function checkWelcomeText(ctx: AuthedCtx, text: string | null | undefined): void {
  if (text !== undefined && text !== null && !isRealmAdmin(ctx.actor)) throw new JsonableError("Must be an organization administrator");
}

/** Zulip's check_invite_limit: at most INVITES_DAILY_MAX email invitations per organization a day, to keep invitations from carrying spam. */
export async function checkInviteLimit(ctx: AuthedCtx, count: number): Promise<void> {
  const max = ctx.config.invitesDailyMax;
  if (max === 0) return;
  const recent = await countEmailInvitesSince(ctx.db, ctx.realm.id, nowSeconds(ctx.clock) - DAY_SECONDS);
  if (recent + count <= max) return;
  const msg = "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.";
  throw new InvitationError(msg, [], { sentInvitations: false, dailyLimitReached: true });
}

/**
 * Splits the addresses into the invalid (not an address, or one the organization does not take),
 * those that already have accounts, and the rest (Zulip's validate_email_is_valid and get_existing_user_errors).
 */
async function sortAddresses(ctx: AuthedCtx, emails: string[]): Promise<{ invalid: InvitationSkip[]; skipped: InvitationSkip[]; good: string[] }> {
  const rule = await realmEmailRule(ctx.db, ctx.realm);
  const problem = (email: string): string | null => {
    if (!isEmailAddress(email)) return "Invalid address.";
    const refusal = rule(email);
    return refusal === null ? null : ADDRESS_REFUSALS[refusal];
  };
  const valid = emails.filter((e) => problem(e) === null);
  const existing = new Map((await usersByIdsOrEmails(ctx.db, ctx.realm.id, [], valid.map((e) => e.toLowerCase()))).map((u) => [u.delivery_email.toLowerCase(), u]));
  const invalid: InvitationSkip[] = emails.flatMap((e): InvitationSkip[] => {
    const why = problem(e);
    return why === null ? [] : [[e, why, false]];
  });
  const skipped: InvitationSkip[] = [];
  const good: string[] = [];
  for (const email of valid) {
    const user = existing.get(email.toLowerCase());
    if (!user) good.push(email);
    else skipped.push([email, user.is_active === 1 ? "Already has an account." : "Account has been deactivated.", user.is_active !== 1]);
  }
  return { invalid, skipped, good };
}

/**
 * POST /invites: an invitation per address, each mailed when SMTP_URL is set. Addresses that
 * already have accounts are skipped and reported (INVITATION_FAILED with sent_invitations: true)
 * after the others are invited; an invalid address stops them all.
 */
export async function inviteUsers(ctx: AuthedCtx, input: InviteUsersInput): Promise<Record<string, never>> {
  await checkCanInvite(ctx, "can_invite_users_group");
  checkInviteRole(ctx.actor, input.invite_as, roleNeedsAdmin(input.invite_as));
  if (input.invitee_emails === "") throw new JsonableError("You must specify at least one email address.");
  const emails = inviteeEmails(input.invitee_emails);
  const streams = await accessStreamsForInvite(ctx, input.stream_ids);
  checkWelcomeText(ctx, input.welcome_message_custom_text);
  await checkInviteLimit(ctx, emails.length);
  const tooNew = ctx.actor.date_joined > nowSeconds(ctx.clock) - MIN_INVITER_AGE_SECONDS;
  if (!realmSettings(ctx.realm).invite_required && tooNew && !isRealmAdmin(ctx.actor)) {
    const msg = "Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.";
    throw new InvitationError(msg, [], { sentInvitations: false });
  }
  const { invalid, skipped, good } = await sortAddresses(ctx, emails);
  if (invalid.length > 0) throw new InvitationError("Some emails did not validate, so we didn't send any invitations.", [...invalid, ...skipped], { sentInvitations: false });
  if (good.length === 0 && skipped.length > 0) throw new InvitationError("We weren't able to invite anyone.", skipped, { sentInvitations: false });
  const options = { ...input, stream_ids: streams.map((s) => s.id), notify: input.notify_referrer_on_join };
  await withTransaction(ctx, async (tx, emit) => {
    for (const email of good) {
      const { invite, token } = await doCreateInvite(tx, ctx, ctx.actor.id, email, options);
      await doQueueInviteEmail(tx, ctx, invite, token, ctx.actor);
    }
    if (good.length > 0) await emitInvitesChanged(tx, ctx, emit, ctx.actor.id);
  });
  if (skipped.length > 0) {
    const msg = "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!";
    throw new InvitationError(msg, skipped, { sentInvitations: true });
  }
  return {};
}

/** POST /invites/multiuse: a reusable invitation link, for callers in create_multiuse_invite_group. */
export async function createMultiuseInvite(ctx: AuthedCtx, input: InviteOptions): Promise<{ invite_link: string }> {
  await checkCanInvite(ctx, "create_multiuse_invite_group");
  checkInviteRole(ctx.actor, input.invite_as, roleNeedsAdmin(input.invite_as));
  const streams = await accessStreamsForInvite(ctx, input.stream_ids);
  checkWelcomeText(ctx, input.welcome_message_custom_text);
  const options = { ...input, stream_ids: streams.map((s) => s.id), notify: false };
  const token = await withTransaction(ctx, async (tx, emit) => {
    const created = await doCreateInvite(tx, ctx, ctx.actor.id, null, options);
    await emitInvitesChanged(tx, ctx, emit, ctx.actor.id);
    return created.token;
  });
  return { invite_link: inviteLinkUrl(ctx.config.externalUrl, token) };
}

/**
 * Password reset (Zulip's ZulipPasswordResetForm and its confirm view): asking for a link by email
 * address, reading a link, and setting a new password with it. The request answers the same for
 * every address (no account enumeration): an active account is mailed its link, a deactivated one
 * a note that it is deactivated, an address without an account (or a bot's) nothing. Requests are
 * limited per address asked for (password_reset_form_by_email) and, by http/rate-limits.ts, per
 * client address (sends_email_by_ip), for known and unknown addresses alike.
 */
import { JsonableError, RateLimitedError } from "../../errors.ts";
import type { RateLimiter, RateLimitRules } from "../../rate-limit.ts";
import { hashPassword } from "../../secrets.ts";
import { ACCOUNT_TOKEN_KIND } from "../../store/schema/account-tokens.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { revokeAccountTokens, useAccountToken } from "../../store/users/account-tokens.ts";
import { getUser, getUserByDeliveryEmail } from "../../store/users/users.ts";
import { doEnv, withTransaction, type ActionCtx, type DoEnv } from "../context.ts";
import { deactivatedAccountResetEmail, passwordResetEmail } from "../email/templates/password-reset.ts";
import { checkPassword, isEmailAddress } from "./accounts.ts";
import { doCreateAccountLink, doQueueAccountEmail, emailSite, openPasswordResetLink, PASSWORD_RESET_LINK_INVALID, passwordResetUrl } from "./account-links.ts";
import { doSetPasswordHash } from "./credentials.ts";

/** Without SMTP_URL no link can be mailed: the form says whom to ask instead. */
export const RESET_NEEDS_EMAIL = "This server does not send email, so it cannot send password reset links. Ask an administrator of the organization to set a new password for you.";

/**
 * Writes a password reset link for an active user and queues the email that carries it (also
 * the send-password-resets command's primitive, which no limit applies to); false without
 * SMTP_URL.
 */
export async function doSendPasswordReset(tx: Db, env: Pick<DoEnv, "realm" | "config" | "clock" | "emit">, user: UserRow): Promise<boolean> {
  const minutes = env.config.passwordResetMinutes;
  const token = await doCreateAccountLink(tx, env, user, ACCOUNT_TOKEN_KIND.passwordReset, minutes);
  const url = passwordResetUrl(env.config.externalUrl, user.id, token);
  return doQueueAccountEmail(tx, env, { to: user.delivery_email, ...passwordResetEmail(user.delivery_email, user.full_name, emailSite(env), url, minutes) });
}

/** POST /accounts/password/reset: mails the address's account a reset link; the same answer whatever the address. */
export async function requestPasswordReset(ctx: ActionCtx, limits: RateLimitRules, input: { email: string }): Promise<Record<string, never>> {
  if (!ctx.config.smtp) throw new JsonableError(RESET_NEEDS_EMAIL);
  const email = input.email.trim();
  if (!isEmailAddress(email)) throw new JsonableError("Enter a valid email address.");
  if (ctx.realm.deactivated === 1) {
    ctx.log.info("password reset asked for in a deactivated organization: nothing sent");
    return {};
  }
  // Counted before the address is looked up, so known and unknown addresses run out alike.
  const refusal = await limits.consume(`${ctx.realm.id}:${email.toLowerCase()}`);
  if (refusal) throw new RateLimitedError(refusal.retryAfterSeconds);
  const user = await getUserByDeliveryEmail(ctx.db, ctx.realm.id, email);
  if (!user || user.is_bot === 1) {
    ctx.log.info("password reset asked for an address without an account: nothing sent");
    return {};
  }
  await withTransaction(ctx, async (tx, emit) => {
    const env = doEnv(ctx, emit);
    if (user.is_active === 1) await doSendPasswordReset(tx, env, user);
    else await doQueueAccountEmail(tx, env, { to: user.delivery_email, ...deactivatedAccountResetEmail(user.delivery_email, emailSite(env)) });
  });
  return {};
}

/** The active user a reset link is for, or the bad-link error. */
async function linkUser(ctx: ActionCtx, db: Db, userId: number): Promise<UserRow> {
  const user = await getUser(db, ctx.realm.id, userId);
  if (!user || user.is_active !== 1 || user.is_bot === 1) throw new JsonableError(PASSWORD_RESET_LINK_INVALID);
  return user;
}

/** GET /accounts/password/reset/{uidb64}/{token}: whether the link works, and for which address (the page shows it). */
export async function readPasswordResetLink(ctx: ActionCtx, uidb64: string, token: string): Promise<{ email: string }> {
  const link = await openPasswordResetLink(ctx.db, ctx, uidb64, token);
  return { email: (await linkUser(ctx, ctx.db, link.user_id)).delivery_email };
}

/**
 * POST /accounts/password/reset/{uidb64}/{token}: sets the new password (the password rules of
 * sign-up apply), uses the link up, revokes the user's other reset links, ends every browser
 * session of the user (not the API key, as upstream) and clears failed logins of the address.
 */
export async function resetPassword(ctx: ActionCtx, loginLimiter: RateLimiter, uidb64: string, token: string, input: { new_password: string }): Promise<{ email: string }> {
  await openPasswordResetLink(ctx.db, ctx, uidb64, token);
  checkPassword(input.new_password);
  const hash = await hashPassword(input.new_password);
  const user = await withTransaction(ctx, async (tx) => {
    const link = await openPasswordResetLink(tx, ctx, uidb64, token);
    const holder = await linkUser(ctx, tx, link.user_id);
    if (!(await useAccountToken(tx, link.id))) throw new JsonableError(PASSWORD_RESET_LINK_INVALID);
    await revokeAccountTokens(tx, ctx.realm.id, holder.id, ACCOUNT_TOKEN_KIND.passwordReset);
    await doSetPasswordHash(tx, ctx, holder, hash);
    return holder;
  });
  await loginLimiter.reset(`${ctx.realm.id}:${user.delivery_email.toLowerCase()}`);
  return { email: user.delivery_email };
}

/**
 * Changing one's own email address (Zulip's validate_email_change_request,
 * do_start_email_change_process and confirm_email_change): PATCH /settings with `email` checks the
 * address and mails it a confirmation link (a newer request revokes older links); the address
 * changes only when that link is opened, which checks it again, announces it as an administrator's
 * change is (realm_user update events with delivery_email, and new_email where the address is
 * public) and tells the old address. Requests are limited per user (email_change_by_user).
 */
import { JsonableError, RateLimitedError, RealmDeactivatedError, UserDeactivatedError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { usersWhoCanAccess } from "../../permissions/user-access.ts";
import type { RateLimitRules } from "../../rate-limit.ts";
import { ACCOUNT_TOKEN_KIND } from "../../store/schema/account-tokens.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { useAccountToken } from "../../store/users/account-tokens.ts";
import { lockUser } from "../../store/users/settings.ts";
import { getUserByDeliveryEmail } from "../../store/users/users.ts";
import { doEnv, withTransaction, type ActionCtx, type AuthedCtx, type DoEnv } from "../context.ts";
import { confirmNewEmailEmail, emailChangedNoticeEmail } from "../email/templates/email-change.ts";
import { doCreateAccountLink, doQueueAccountEmail, EMAIL_CHANGE_LINK_INVALID, emailChangeUrl, emailSite, openAccountLink } from "./account-links.ts";
import { isEmailAddress } from "./accounts.ts";
import { ADDRESS_REFUSALS, realmEmailRule } from "./email-rules.ts";
import { doChangeEmail } from "./update.ts";

/** Without SMTP_URL no confirmation link can be mailed, so no address can be confirmed. */
export const EMAIL_CHANGE_NEEDS_EMAIL = "This server does not send email, so it cannot confirm a new email address. Ask an administrator of the organization to change it.";

/** Zulip's validate_email_change_request: may `user` move to `email` now? */
async function checkNewAddress(db: Db, realm: RealmRow, user: UserRow, email: string): Promise<void> {
  if (user.is_active !== 1) throw new UserDeactivatedError();
  if (realmSettings(realm).email_changes_disabled && !isRealmAdmin(user)) throw new JsonableError("Email address changes are disabled in this organization.");
  if (!isEmailAddress(email)) throw new JsonableError("Invalid address.");
  const refusal = (await realmEmailRule(db, realm))(email);
  if (refusal !== null) throw new JsonableError(ADDRESS_REFUSALS[refusal]);
  const holder = await getUserByDeliveryEmail(db, realm.id, email);
  if (holder) throw new JsonableError(holder.is_active === 1 ? "Already has an account." : "Account has been deactivated.");
}

/**
 * PATCH /settings' `email`: the new address to confirm, or null when it is the current one.
 * Checked as the change will be, then limited per user (only a valid request counts).
 */
export async function checkEmailChange(ctx: AuthedCtx, limits: RateLimitRules, email: string): Promise<string | null> {
  if (email === ctx.actor.delivery_email) return null;
  await checkNewAddress(ctx.db, ctx.realm, ctx.actor, email);
  if (!ctx.config.smtp) throw new JsonableError(EMAIL_CHANGE_NEEDS_EMAIL);
  const refusal = await limits.consume(`${ctx.realm.id}:${ctx.actor.id}`);
  if (refusal) throw new RateLimitedError(refusal.retryAfterSeconds);
  return email;
}

/** Writes the confirmation link of a change to `newEmail` (revoking older ones) and mails it to the new address. */
export async function doStartEmailChange(tx: Db, env: Pick<DoEnv, "realm" | "config" | "clock" | "emit">, user: UserRow, newEmail: string): Promise<void> {
  const minutes = env.config.emailChangeConfirmationMinutes;
  const token = await doCreateAccountLink(tx, env, user, ACCOUNT_TOKEN_KIND.emailChange, minutes, { oldEmail: user.delivery_email, newEmail });
  const url = emailChangeUrl(env.config.externalUrl, token);
  await doQueueAccountEmail(tx, env, { to: newEmail, ...confirmNewEmailEmail(newEmail, user.full_name, user.delivery_email, emailSite(env), url, minutes) });
}

/**
 * POST /accounts/confirm_new_email/{key} (the link's page calls it; no login needed, as
 * upstream's link): makes the change the link was mailed for, once, if the account still has the
 * address it had then and the new one may still be taken, and tells the old address.
 */
export async function confirmEmailChange(ctx: ActionCtx, key: string): Promise<{ old_email: string; new_email: string }> {
  const { realm } = ctx;
  if (!(await openAccountLink(ctx.db, ctx, ACCOUNT_TOKEN_KIND.emailChange, key))) throw new JsonableError(EMAIL_CHANGE_LINK_INVALID);
  if (realm.deactivated === 1) throw new RealmDeactivatedError();
  return withTransaction(ctx, async (tx, emit) => {
    const link = await openAccountLink(tx, ctx, ACCOUNT_TOKEN_KIND.emailChange, key);
    const oldEmail = link?.old_email ?? null;
    const newEmail = link?.new_email ?? null;
    if (!link || oldEmail === null || newEmail === null) throw new JsonableError(EMAIL_CHANGE_LINK_INVALID);
    const user = await lockUser(tx, realm.id, link.user_id);
    // A change made since (by an administrator, or another link) makes this link stale.
    if (user.delivery_email !== oldEmail) throw new JsonableError(EMAIL_CHANGE_LINK_INVALID);
    await checkNewAddress(tx, realm, user, newEmail);
    if (!(await useAccountToken(tx, link.id))) throw new JsonableError(EMAIL_CHANGE_LINK_INVALID);
    const env = doEnv(ctx, emit);
    await doChangeEmail(tx, env, user, newEmail, await usersWhoCanAccess(tx, realm, user));
    await doQueueAccountEmail(tx, env, { to: oldEmail, ...emailChangedNoticeEmail(oldEmail, newEmail, emailSite(env)) });
    return { old_email: oldEmail, new_email: newEmail };
  });
}

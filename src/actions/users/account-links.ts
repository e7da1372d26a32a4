/**
 * The emailed links of accounts (Zulip's Confirmation objects): a password reset link
 * `/accounts/password/reset/<uidb64>/<token>/` and an email change link
 * `/accounts/confirm_new_email/<key>/`, both pages of the web app. A link carries a random token
 * of which only the digest is stored; it works once, until it expires, and a newer link of the
 * same kind for the same user revokes the older ones.
 */
import { nowSeconds } from "../../clock.ts";
import { JsonableError } from "../../errors.ts";
import { randomAlphanumeric, tokenDigest } from "../../secrets.ts";
import { ACCOUNT_TOKEN_KIND, ACCOUNT_TOKEN_STATUS, type AccountTokenRow } from "../../store/schema/account-tokens.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { deleteExpiredAccountTokens, getAccountToken, insertAccountToken, revokeAccountTokens } from "../../store/users/account-tokens.ts";
import type { DoEnv } from "../context.ts";
import { doQueueEmail, emailQueued, type Email } from "../email/outbox.ts";
import type { Site } from "../email/templates/html.ts";

/** Characters of a link's token (as invitation links). */
const TOKEN_CHARS = 32;

/** The refusal of a link that is unknown, used, revoked or expired (one error for all: a guesser learns nothing). */
export const PASSWORD_RESET_LINK_INVALID = "The password reset link is invalid or has expired, possibly because it has already been used. Please request a new password reset.";
export const EMAIL_CHANGE_LINK_INVALID = "The confirmation link has expired or been deactivated.";

/** What a new link records besides its user: an email change's old and new addresses. */
type LinkExtra = { oldEmail?: string; newEmail?: string };

/** Where emails say they come from: the organization and EXTERNAL_URL. */
export function emailSite(env: Pick<DoEnv, "realm" | "config">): Site {
  return { realmName: env.realm.name, url: env.config.externalUrl };
}

/** Queues an account email in `tx` and wakes this process's email worker once it commits; false without SMTP_URL. */
export async function doQueueAccountEmail(tx: Db, env: Pick<DoEnv, "realm" | "config" | "emit">, email: Email): Promise<boolean> {
  const queued = await doQueueEmail(tx, env, email);
  if (queued) env.emit.afterCommit(emailQueued.fire);
  return queued;
}

/** A user id as Django's urlsafe_base64_encode writes it in reset links (base64url of its digits, unpadded). */
export function uidToBase64(userId: number): string {
  return Buffer.from(String(userId)).toString("base64url");
}

/** The user id of a link's `uidb64`, or null when it is not one. */
export function uidFromBase64(uidb64: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(uidb64)) return null;
  const digits = Buffer.from(uidb64, "base64url").toString("latin1");
  return /^[1-9]\d{0,15}$/.test(digits) ? Number(digits) : null;
}

/** The address of a password reset link. */
export function passwordResetUrl(externalUrl: string, userId: number, token: string): string {
  return `${externalUrl}/accounts/password/reset/${uidToBase64(userId)}/${token}/`;
}

/** The address of an email change's confirmation link. */
export function emailChangeUrl(externalUrl: string, token: string): string {
  return `${externalUrl}/accounts/confirm_new_email/${token}/`;
}

/**
 * Writes a new link of `kind` for `user`, valid `minutes`, revoking the user's open ones of that
 * kind (and sweeping expired links); returns its token, which only the email carries.
 */
export async function doCreateAccountLink(tx: Db, env: Pick<DoEnv, "realm" | "clock">, user: UserRow, kind: number, minutes: number, extra: LinkExtra = {}): Promise<string> {
  const now = nowSeconds(env.clock);
  await deleteExpiredAccountTokens(tx, now);
  await revokeAccountTokens(tx, env.realm.id, user.id, kind);
  const token = randomAlphanumeric(TOKEN_CHARS);
  await insertAccountToken(tx, {
    realm_id: env.realm.id,
    user_id: user.id,
    kind,
    token_hash: tokenDigest(token),
    old_email: extra.oldEmail ?? null,
    new_email: extra.newEmail ?? null,
    created_at: now,
    expires_at: now + minutes * 60,
  });
  return token;
}

/** The open, unexpired link of `kind` whose token this is, in the caller's realm; else null. */
export async function openAccountLink(db: Db, env: Pick<DoEnv, "realm" | "clock">, kind: number, token: string): Promise<AccountTokenRow | null> {
  if (!/^[A-Za-z0-9]{1,64}$/.test(token)) return null;
  const row = await getAccountToken(db, kind, tokenDigest(token));
  if (!row || row.realm_id !== env.realm.id || row.status !== ACCOUNT_TOKEN_STATUS.active) return null;
  return Number(row.expires_at) > nowSeconds(env.clock) ? row : null;
}

/** The open password reset link of `uidb64` and `token`, or the error every bad link gets. */
export async function openPasswordResetLink(db: Db, env: Pick<DoEnv, "realm" | "clock">, uidb64: string, token: string): Promise<AccountTokenRow> {
  const row = await openAccountLink(db, env, ACCOUNT_TOKEN_KIND.passwordReset, token);
  if (!row || row.user_id !== uidFromBase64(uidb64)) throw new JsonableError(PASSWORD_RESET_LINK_INVALID);
  return row;
}

/** Password login: the check every password login shares, and POST /fetch_api_key (the password buys the user's API key). */
import { AuthenticationFailedError, JsonableError, RateLimitedError, RealmDeactivatedError, UserDeactivatedError } from "../../errors.ts";
import { verifyPassword } from "../../secrets.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { getUserByDeliveryEmail } from "../../store/users/users.ts";
import type { RateLimiter } from "../../rate-limit.ts";
import { doEnv, withTransaction, type ActionCtx } from "../context.ts";
import { doRecordLogin } from "./login-notice.ts";

/** The response of a successful login: the API key, the delivery email and the user id. */
type ApiKeyResult = { api_key: string; email: string; user_id: number };

// A well-formed hash that matches no password: unknown users cost one scrypt like known ones,
// so response time does not tell which addresses have accounts.
const DECOY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

// Zulip validates the username as an email address (with email auth) before trying it.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

/**
 * Checks `username`/`password` against the default realm (the rule of every password login:
 * this endpoint and the web app's POST /json/login). Wrong password and unknown user give one
 * error; a deactivated account or realm is revealed only to the holder of the right password.
 * Every failure counts toward the per-username limit (`loginLimiter`, Zulip's
 * authenticate_by_username), checked before the password is; a success clears it.
 */
export async function checkPasswordLogin(ctx: ActionCtx, loginLimiter: RateLimiter, username: string, password: string): Promise<UserRow> {
  if (!EMAIL_SHAPE.test(username)) throw new JsonableError("Enter a valid email address.");
  const limiterKey = `${ctx.realm.id}:${username.toLowerCase()}`;
  const state = await loginLimiter.peek(limiterKey);
  if (state?.limited) throw new RateLimitedError(state.retryAfterSeconds);
  const user = await getUserByDeliveryEmail(ctx.db, ctx.realm.id, username);
  const valid = await verifyPassword(password, user?.password_hash ?? DECOY_HASH);
  if (!user || !valid) {
    await loginLimiter.consume(limiterKey);
    throw new AuthenticationFailedError();
  }
  if (user.is_active !== 1) {
    await loginLimiter.consume(limiterKey);
    throw new UserDeactivatedError();
  }
  if (ctx.realm.deactivated === 1) {
    await loginLimiter.consume(limiterKey);
    throw new RealmDeactivatedError();
  }
  await loginLimiter.reset(limiterKey);
  return user;
}

/** POST /fetch_api_key: the password buys the user's API key; the login is recorded (and notified) as a web login is. */
export async function fetchApiKey(ctx: ActionCtx, loginLimiter: RateLimiter, username: string, password: string): Promise<ApiKeyResult> {
  const user = await checkPasswordLogin(ctx, loginLimiter, username, password);
  await withTransaction(ctx, (tx, emit) => doRecordLogin(tx, doEnv(ctx, emit), user));
  return { api_key: user.api_key, email: user.delivery_email, user_id: user.id };
}

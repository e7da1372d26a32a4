/**
 * Browser sessions (the web app's /json API, Zulip's Django sessions): a password login starts
 * one, a logout ends it. Deactivation and password changes end them too (credentials.ts,
 * settings.ts); expired ones are swept at each login.
 */
import { nowSeconds } from "../../clock.ts";
import { randomAlphanumeric, tokenDigest } from "../../secrets.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { deleteExpiredSessions, deleteSession, insertSession } from "../../store/users/sessions.ts";
import { doEnv, withTransaction, type ActionCtx } from "../context.ts";
import { SESSION_ID_CHARS } from "./authenticate.ts";
import { checkPasswordLogin } from "./fetch-api-key.ts";
import { doRecordLogin } from "./login-notice.ts";
import type { RateLimiter } from "../../rate-limit.ts";

const SECONDS_PER_DAY = 24 * 60 * 60;

/** A session just started: its id (the cookie's value, never stored), its user and its lifetime. */
export type StartedSession = { sessionId: string; user: UserRow; maxAgeSeconds: number };

/**
 * POST /json/login: checks the password as POST /fetch_api_key does (same errors, same
 * per-username limit), then starts a session of SESSION_DAYS and records the login (its time, and
 * the new-login email: login-notice.ts). The browser's previous session, if any, ends (Django's
 * login cycles the session key).
 */
export async function logIn(ctx: ActionCtx, loginLimiter: RateLimiter, username: string, password: string, previousSessionId: string | null): Promise<StartedSession> {
  const user = await checkPasswordLogin(ctx, loginLimiter, username, password);
  const sessionId = randomAlphanumeric(SESSION_ID_CHARS);
  const now = nowSeconds(ctx.clock);
  const maxAgeSeconds = ctx.config.sessionDays * SECONDS_PER_DAY;
  await withTransaction(ctx, async (tx, emit) => {
    if (previousSessionId !== null) await deleteSession(tx, tokenDigest(previousSessionId));
    // Logins are rare next to requests: a good moment to drop the sessions that ended unused.
    await deleteExpiredSessions(tx, now);
    await insertSession(tx, { realm_id: user.realm_id, user_id: user.id, key_hash: tokenDigest(sessionId), created_at: now, expires_at: now + maxAgeSeconds });
    await doRecordLogin(tx, doEnv(ctx, emit), user);
  });
  return { sessionId, user, maxAgeSeconds };
}

/** POST /json/logout: ends the browser's session (nothing to do without one). */
export async function logOut(ctx: ActionCtx, sessionId: string | null): Promise<void> {
  if (sessionId === null) return;
  await withTransaction(ctx, (tx) => deleteSession(tx, tokenDigest(sessionId)));
}

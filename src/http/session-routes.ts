/**
 * The browser session's own routes (Zulip's web login and logout, as JSON): GET /json/session
 * (who is logged in, the CSRF token, and whether the server sends email), POST /json/login and
 * POST /json/logout. Every other /json route is an /api/v1 endpoint served with the session
 * (http/app.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ActionCtx } from "../actions/context.ts";
import { logIn, logOut } from "../actions/users/sessions.ts";
import { JsonableError } from "../errors.ts";
import type { RateLimiter } from "../rate-limit.ts";
import type { UserRow } from "../store/schema/database.ts";
import { authenticate, type AuthEnv } from "./auth.ts";
import type { App, AppRequest, Endpoint } from "./endpoint.ts";
import { str, type ParseResult } from "./params.ts";
import { csrfToken, JSON_PREFIX, readCookie, rotateCsrfToken, SESSION_COOKIE, setCookie } from "./session.ts";

/** The routes here with how the rate limits count them: by client address, as unauthenticated calls (a stale cookie must not make them fail). */
export const SESSION_ROUTES: ReadonlyArray<{ method: "GET" | "POST"; url: string }> = [
  { method: "GET", url: `${JSON_PREFIX}/session` },
  { method: "POST", url: `${JSON_PREFIX}/login` },
  { method: "POST", url: `${JSON_PREFIX}/logout` },
];

const loginParams = z.object({ username: str(), password: str() });
const noParams = z.object({});

/** What the routes take from the app: how it authenticates, builds contexts and reads parameters. */
export type SessionRouteHost = {
  authEnv: AuthEnv;
  /** Whether the site is https (the session cookie is then Secure). */
  secure: boolean;
  /** Whether the server sends email (SMTP_URL): the app then offers email invitations, else links to share. */
  sendsEmail: boolean;
  /** Failed password logins per username, shared with POST /fetch_api_key. */
  loginLimiter: RateLimiter;
  /** The action context of an unauthenticated request (the organization, no caller). */
  anonymousCtx(req: AppRequest): Promise<ActionCtx>;
  /** The request's query and body parsed by a schema, as endpoints' parameters are. */
  readParams<S extends z.ZodObject>(req: FastifyRequest, endpoint: { auth: Endpoint["auth"]; params: S }): ParseResult<z.output<S>>;
};

/** The logged-in user as the web app needs it before POST /register: never the API key. */
function sessionUser(user: UserRow): { user_id: number; email: string; full_name: string } {
  return { user_id: user.id, email: user.delivery_email, full_name: user.full_name };
}

function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  setCookie(reply, SESSION_COOKIE, "", { httpOnly: true, maxAgeSeconds: 0, secure });
}

function ignoredExtra(ignored: string[]): Record<string, string[]> {
  return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
}

/** The user of the request's session, or null (none, ended or expired: the cookie is then cleared). */
async function currentUser(req: FastifyRequest, reply: FastifyReply, host: SessionRouteHost): Promise<UserRow | null> {
  if (readCookie(req, SESSION_COOKIE) === null) return null;
  try {
    return (await authenticate(req, host.authEnv, "session")).user;
  } catch (err) {
    if (!(err instanceof JsonableError) || err.status !== 401) throw err;
    clearSessionCookie(reply, host.secure);
    return null;
  }
}

/** Registers GET /json/session, POST /json/login and POST /json/logout (the CSRF check applies to the POSTs). */
export function registerSessionRoutes(app: App, host: SessionRouteHost): void {
  app.get(`${JSON_PREFIX}/session`, async (req, reply) => {
    const { ignored } = host.readParams(req, { auth: "none", params: noParams });
    const user = await currentUser(req, reply, host);
    return reply.send({ result: "success", msg: "", csrf_token: csrfToken(req), user: user && sessionUser(user), email_sending: host.sendsEmail, ...ignoredExtra(ignored) });
  });

  app.post(`${JSON_PREFIX}/login`, async (req, reply) => {
    const { params, ignored } = host.readParams(req, { auth: "none", params: loginParams });
    const ctx = await host.anonymousCtx(req);
    const started = await logIn(ctx, host.loginLimiter, params.username, params.password, readCookie(req, SESSION_COOKIE));
    setCookie(reply, SESSION_COOKIE, started.sessionId, { httpOnly: true, maxAgeSeconds: started.maxAgeSeconds, secure: host.secure });
    // A new CSRF token with the new session (Django's login rotates it): one read before cannot be replayed.
    const token = rotateCsrfToken(req);
    const user = sessionUser(started.user);
    return reply.send({ result: "success", msg: "", ...user, csrf_token: token, user, ...ignoredExtra(ignored) });
  });

  app.post(`${JSON_PREFIX}/logout`, async (req, reply) => {
    const { ignored } = host.readParams(req, { auth: "none", params: noParams });
    await logOut(await host.anonymousCtx(req), readCookie(req, SESSION_COOKIE));
    clearSessionCookie(reply, host.secure);
    return reply.send({ result: "success", msg: "", ...ignoredExtra(ignored) });
  });
}

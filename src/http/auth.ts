/**
 * Who sent a request: HTTP Basic with `email:api_key`, as every Zulip client sends it (/api/v1),
 * or the browser's session cookie (/json); file downloads take either, as Zulip's do.
 */
import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { Clock } from "../clock.ts";
import { nowSeconds } from "../clock.ts";
import type { Database, RealmRow, UserRow } from "../store/schema/database.ts";
import { JsonableError, UnauthorizedError } from "../errors.ts";
import { authenticateApiKey, authenticateApiKeyOnly, authenticateSession } from "../actions/users/authenticate.ts";
import { readCookie, SESSION_COOKIE } from "./session.ts";

/** The caller a request names; `session`: the digest of its browser session (null with an API key). */
export type Authenticated = { user: UserRow; realm: RealmRow; session: string | null };

/**
 * Where a route reads credentials: the Authorization header (/api/v1), the session cookie
 * (/json), or the session when it is valid and else the header (/user_uploads: a browser loads
 * an image by URL with its cookie, an API client with its key; Zulip's rest_dispatch order).
 */
export type CredentialSource = "basic" | "session" | "either";

/** What checking credentials reads: the database, the site's email domain, the clock (session expiry). */
export type AuthEnv = { db: Kysely<Database>; host: string; clock: Clock };

/** Splits an Authorization header into email and key, or null when it is not Basic. */
function parseBasicAuth(header: string | undefined): { email: string; key: string } | null {
  if (!header) return null;
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { email: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

async function verifyBasic(req: FastifyRequest, env: AuthEnv): Promise<Authenticated> {
  const creds = parseBasicAuth(req.headers.authorization);
  if (!creds) throw new UnauthorizedError();
  const { user, realm } = await authenticateApiKey(env.db, creds.email, creds.key, env.host);
  return { user, realm, session: null };
}

async function verifySession(req: FastifyRequest, env: AuthEnv): Promise<Authenticated> {
  const sessionId = readCookie(req, SESSION_COOKIE);
  if (sessionId === null) throw new UnauthorizedError();
  return authenticateSession(env.db, sessionId, nowSeconds(env.clock));
}

async function verify(req: FastifyRequest, env: AuthEnv, source: CredentialSource): Promise<Authenticated> {
  if (source === "basic") return verifyBasic(req, env);
  if (source === "session") return verifySession(req, env);
  if (readCookie(req, SESSION_COOKIE) === null) return verifyBasic(req, env);
  try {
    return await verifySession(req, env);
  } catch (err) {
    if (!(err instanceof JsonableError) || err.status !== 401 || !req.headers.authorization) throw err;
    return verifyBasic(req, env);
  }
}

/** Whether the request carries credentials of the kind the route reads (else it is anonymous). */
export function hasCredentials(req: FastifyRequest, source: CredentialSource): boolean {
  const header = Boolean(req.headers.authorization);
  const cookie = readCookie(req, SESSION_COOKIE) !== null;
  return source === "basic" ? header : source === "session" ? cookie : header || cookie;
}

/**
 * Credentials already checked for a request (by the rate-limit hook, which must know the user
 * before the body is read), so its handler does not query them again. Keyed by the request
 * object: an entry lives exactly as long as its request.
 */
const checkedByRequest = new WeakMap<FastifyRequest, Authenticated>();

/**
 * The user and realm named by the request's credentials of `source` (see
 * actions/users/authenticate.ts); none, or a header that is not Basic, is UNAUTHORIZED.
 */
export async function authenticate(req: FastifyRequest, env: AuthEnv, source: CredentialSource): Promise<Authenticated> {
  return checkedByRequest.get(req) ?? verify(req, env, source);
}

/** For the rate-limit hook: checks the request's credentials and keeps them for its handler. */
export async function checkCredentials(req: FastifyRequest, env: AuthEnv, source: CredentialSource): Promise<Authenticated> {
  const result = await verify(req, env, source);
  checkedByRequest.set(req, result);
  return result;
}

/**
 * The caller of an integration's URL (Zulip's @webhook_view): the `api_key` query parameter,
 * which integrations that cannot set headers use, or else the Authorization header.
 */
export async function authenticateWebhook(req: FastifyRequest, env: AuthEnv): Promise<Authenticated> {
  const key = (req.query as Record<string, unknown>).api_key;
  if (typeof key === "string") {
    const { user, realm } = await authenticateApiKeyOnly(env.db, key.trim());
    return { user, realm, session: null };
  }
  return authenticate(req, env, "basic");
}

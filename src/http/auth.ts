/** HTTP Basic authentication with `email:api_key`, as every Zulip client sends it. */
import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { Database, RealmRow, UserRow } from "../store/schema.ts";
import { UnauthorizedError } from "../errors.ts";
import { authenticateApiKey, authenticateApiKeyOnly } from "../actions/users/authenticate.ts";

/** The caller an Authorization header names. */
type Authenticated = { user: UserRow; realm: RealmRow };

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

async function verify(db: Kysely<Database>, header: string | undefined, host: string): Promise<Authenticated> {
  const creds = parseBasicAuth(header);
  if (!creds) throw new UnauthorizedError();
  return authenticateApiKey(db, creds.email, creds.key, host);
}

/**
 * Credentials already checked for a request (by the rate-limit hook, which must know the user
 * before the body is read), so its handler does not query them again. Keyed by the request
 * object: an entry lives exactly as long as its request.
 */
const checkedByRequest = new WeakMap<FastifyRequest, Authenticated>();

/**
 * The user and realm named by the request's Authorization header (see
 * actions/users/authenticate.ts); a header that is not Basic is UNAUTHORIZED.
 */
export async function authenticate(req: FastifyRequest, db: Kysely<Database>, host: string): Promise<Authenticated> {
  return checkedByRequest.get(req) ?? verify(db, req.headers.authorization, host);
}

/** For the rate-limit hook: checks the request's credentials and keeps them for its handler. */
export async function checkCredentials(req: FastifyRequest, db: Kysely<Database>, host: string): Promise<Authenticated> {
  const result = await verify(db, req.headers.authorization, host);
  checkedByRequest.set(req, result);
  return result;
}

/**
 * The caller of an integration's URL (Zulip's @webhook_view): the `api_key` query parameter,
 * which integrations that cannot set headers use, or else the Authorization header.
 */
export async function authenticateWebhook(req: FastifyRequest, db: Kysely<Database>, host: string): Promise<Authenticated> {
  const key = (req.query as Record<string, unknown>).api_key;
  if (typeof key === "string") return authenticateApiKeyOnly(db, key.trim());
  return authenticate(req, db, host);
}

/** HTTP Basic authentication with `email:api_key`, as every Zulip client sends it. */
import type { Kysely } from "kysely";
import type { Database, RealmRow, UserRow } from "../store/schema.ts";
import { UnauthorizedError } from "../errors.ts";
import { authenticateApiKey } from "../actions/users/authenticate.ts";

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

/**
 * The user and realm named by an Authorization header (see actions/users/authenticate.ts); a
 * header that is not Basic is UNAUTHORIZED.
 */
export async function authenticate(db: Kysely<Database>, header: string | undefined, host: string): Promise<{ user: UserRow; realm: RealmRow }> {
  const creds = parseBasicAuth(header);
  if (!creds) throw new UnauthorizedError();
  return authenticateApiKey(db, creds.email, creds.key, host);
}

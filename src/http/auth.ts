/** HTTP Basic authentication with `email:api_key`, as every Zulip client sends it. */
import type { Kysely } from "kysely";
import type { Database, RealmRow, UserRow } from "../store/schema.ts";
import { UnauthorizedError } from "./errors.ts";
import { apiEmail } from "../present/emails.ts";
import { getRealm } from "../store/realms.ts";
import { getUserByApiKey } from "../store/users.ts";

/** Splits an Authorization header into email and key, or null when it is not Basic. */
export function parseBasicAuth(header: string | undefined): { email: string; key: string } | null {
  if (!header) return null;
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { email: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

/**
 * The user and realm named by the credentials. The email may be the user's delivery email or
 * API email (`user{id}@host` when hidden). Any mismatch, deactivated user or deactivated realm
 * is the same UNAUTHORIZED error, so the response tells an attacker nothing.
 */
export async function authenticate(db: Kysely<Database>, header: string | undefined, host: string): Promise<{ user: UserRow; realm: RealmRow }> {
  const creds = parseBasicAuth(header);
  if (!creds) throw new UnauthorizedError();
  const user = await getUserByApiKey(db, creds.key);
  const email = creds.email.toLowerCase();
  if (!user || (user.delivery_email.toLowerCase() !== email && apiEmail(user, host).toLowerCase() !== email)) {
    throw new UnauthorizedError("Invalid API key");
  }
  if (user.is_active !== 1) throw new UnauthorizedError("Account is deactivated");
  const realm = await getRealm(db, user.realm_id);
  if (!realm || realm.deactivated === 1) throw new UnauthorizedError("This organization has been deactivated");
  return { user, realm };
}

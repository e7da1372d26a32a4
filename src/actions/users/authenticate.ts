/** API-key authentication: the email and key every Zulip client sends (HTTP Basic), checked. */
import type { Kysely } from "kysely";
import { UnauthorizedError } from "../../errors.ts";
import { apiEmail } from "../../store/emails.ts";
import { getDefaultRealm, getRealm } from "../../store/realms.ts";
import type { Database, RealmRow, UserRow } from "../../store/schema.ts";
import { getUserByApiKey } from "../../store/users.ts";

const API_KEY_SHAPE = /^[A-Za-z0-9]{1,128}$/;

/**
 * The user and realm named by API credentials. The email may be the user's delivery email or
 * API email (`user{id}@host` when hidden). Any mismatch, deactivated user or deactivated realm
 * is the same UNAUTHORIZED error, so the response tells an attacker nothing.
 */
export async function authenticateApiKey(db: Kysely<Database>, rawEmail: string, key: string, host: string): Promise<{ user: UserRow; realm: RealmRow }> {
  // Keys are ours (letters and digits): anything else cannot match, and never reaches a query
  // (PostgreSQL refuses a NUL byte with an error, not a miss).
  if (!API_KEY_SHAPE.test(key)) throw new UnauthorizedError("Invalid API key");
  const user = await getUserByApiKey(db, key);
  const email = rawEmail.toLowerCase();
  if (!user || (user.delivery_email.toLowerCase() !== email && apiEmail(user, host).toLowerCase() !== email)) {
    throw new UnauthorizedError("Invalid API key");
  }
  return checkAccount(db, user);
}

/** The user and realm an API key alone names (Zulip's validate_api_key for webhook URLs); same errors as above. */
export async function authenticateApiKeyOnly(db: Kysely<Database>, key: string): Promise<{ user: UserRow; realm: RealmRow }> {
  if (!API_KEY_SHAPE.test(key)) throw new UnauthorizedError("Invalid API key");
  const user = await getUserByApiKey(db, key);
  if (!user) throw new UnauthorizedError("Invalid API key");
  return checkAccount(db, user);
}

/** The account's and its organization's state, checked after its credentials. */
async function checkAccount(db: Kysely<Database>, user: UserRow): Promise<{ user: UserRow; realm: RealmRow }> {
  if (user.is_active !== 1) throw new UnauthorizedError("Account is deactivated");
  const realm = await getRealm(db, user.realm_id);
  if (!realm || realm.deactivated === 1) throw new UnauthorizedError("This organization has been deactivated");
  return { user, realm };
}

/** The organization an unauthenticated request addresses (the server's one realm). */
export async function defaultRealm(db: Kysely<Database>): Promise<RealmRow | undefined> {
  return getDefaultRealm(db);
}

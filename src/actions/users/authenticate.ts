/** Authentication: the email and API key every Zulip client sends (HTTP Basic), or a browser's session, checked. */
import type { Kysely } from "kysely";
import { UnauthorizedError } from "../../errors.ts";
import { tokenDigest } from "../../secrets.ts";
import { apiEmail } from "../../model/emails.ts";
import { getDefaultRealm, getRealm } from "../../store/realm/realms.ts";
import type { Database, RealmRow, UserRow } from "../../store/schema/database.ts";
import { getSessionUser } from "../../store/users/sessions.ts";
import { getUserByApiKey } from "../../store/users/users.ts";

const API_KEY_SHAPE = /^[A-Za-z0-9]{1,128}$/;

/** Length of a session id (the `sessionid` cookie): 32 letters and digits, about 190 random bits, as Django's session keys. */
export const SESSION_ID_CHARS = 32;
const SESSION_ID_SHAPE = new RegExp(`^[A-Za-z0-9]{${SESSION_ID_CHARS}}$`);

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

/**
 * The user and realm of a browser session, and the session's digest (what the store keeps). A
 * session that is unknown, ended (logout, deactivation, password change) or expired at
 * `nowSeconds` is UNAUTHORIZED with the not-logged-in message, as Zulip answers a /json request
 * without a session; the account's and realm's state are checked as for an API key.
 */
export async function authenticateSession(db: Kysely<Database>, sessionId: string, nowSeconds: number): Promise<{ user: UserRow; realm: RealmRow; session: string }> {
  if (!SESSION_ID_SHAPE.test(sessionId)) throw new UnauthorizedError();
  const session = tokenDigest(sessionId);
  const found = await getSessionUser(db, session);
  if (!found || found.expiresAt <= nowSeconds) throw new UnauthorizedError();
  const { user, realm } = await checkAccount(db, found.user);
  return { user, realm, session };
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

/** Table type of browser sessions (listed in schema.ts's Database). */
import type { Generated, Insertable, Selectable } from "kysely";

/**
 * One logged-in browser (Zulip's django_session row): the `sessionid` cookie names it. Only the
 * SHA-256 of the cookie's value is kept (secrets.ts tokenDigest), so a copy of the database logs
 * nobody in.
 */
export interface SessionTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** tokenDigest of the session id the cookie carries. */
  key_hash: string;
  /** UNIX seconds. */
  created_at: number;
  /** UNIX seconds: the session is refused from then on (SESSION_DAYS after login). */
  expires_at: number;
}

/** A stored session. */
export type SessionRow = Selectable<SessionTable>;
/** A session to insert. */
export type NewSession = Insertable<SessionTable>;

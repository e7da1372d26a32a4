/** Table type of the single-use links of accounts (listed in schema.ts's Database). */
import type { Generated, Insertable, Selectable } from "kysely";

/** What a link does: set a new password, or confirm a new email address. */
export const ACCOUNT_TOKEN_KIND = { passwordReset: 1, emailChange: 2 } as const;

/** A link's state: open, used (it works once), or revoked by a later link of the same kind. */
export const ACCOUNT_TOKEN_STATUS = { active: 0, used: 1, revoked: 2 } as const;

/**
 * One emailed link (Zulip's Confirmation row, with its EmailChangeStatus for a new address):
 * only the SHA-256 of its token is kept (secrets.ts tokenDigest), so a copy of the database
 * opens no link.
 */
export interface AccountTokenTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** ACCOUNT_TOKEN_KIND. */
  kind: number;
  token_hash: string;
  /** An email change: the address when it was asked for (the change applies only while it stands) and the new one. */
  old_email: string | null;
  new_email: string | null;
  /** UNIX seconds. */
  created_at: number;
  /** UNIX seconds: the link is refused from then on. */
  expires_at: number;
  /** ACCOUNT_TOKEN_STATUS. */
  status: Generated<number>;
}

/** A stored link. */
export type AccountTokenRow = Selectable<AccountTokenTable>;
/** A link to insert. */
export type NewAccountToken = Insertable<AccountTokenTable>;

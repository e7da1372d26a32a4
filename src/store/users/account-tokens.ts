/**
 * The single-use links of accounts (password resets, email changes): written when mailed, looked
 * up by the digest of the token the link carries, used or revoked once, and swept once expired.
 */
import { ACCOUNT_TOKEN_STATUS, type AccountTokenRow, type NewAccountToken } from "../schema/account-tokens.ts";
import type { Db } from "../schema/types.ts";

/** Writes a link. */
export async function insertAccountToken(db: Db, row: NewAccountToken): Promise<void> {
  await db.insertInto("account_tokens").values(row).execute();
}

/** The link of this kind whose token has this digest, whatever its state (any realm, as sessions are found). */
export function getAccountToken(db: Db, kind: number, tokenHash: string): Promise<AccountTokenRow | undefined> {
  return db.selectFrom("account_tokens").selectAll().where("token_hash", "=", tokenHash).where("kind", "=", kind).executeTakeFirst();
}

/**
 * Marks an open link used; false when it was not open any more (a concurrent request used it
 * first), so a link works once.
 */
export async function useAccountToken(db: Db, id: number): Promise<boolean> {
  const result = await db
    .updateTable("account_tokens")
    .set({ status: ACCOUNT_TOKEN_STATUS.used })
    .where("id", "=", id)
    .where("status", "=", ACCOUNT_TOKEN_STATUS.active)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes the user's open links of a kind (a newer one replaces them, or a reset password makes them moot). */
export async function revokeAccountTokens(db: Db, realmId: number, userId: number, kind: number): Promise<void> {
  await db
    .updateTable("account_tokens")
    .set({ status: ACCOUNT_TOKEN_STATUS.revoked })
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("status", "=", ACCOUNT_TOKEN_STATUS.active)
    .execute();
}

/** Deletes the links that expired by `nowSeconds` (of every realm: they open nothing). */
export async function deleteExpiredAccountTokens(db: Db, nowSeconds: number): Promise<void> {
  await db.deleteFrom("account_tokens").where("expires_at", "<=", nowSeconds).execute();
}

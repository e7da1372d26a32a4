/**
 * Browser sessions: written at login, looked up on every /json request by the digest of the
 * cookie's value (any realm, as an API key is), deleted at logout, on deactivation and password
 * changes, and swept once expired.
 */
import { eachChunk, idChunks } from "../engine/chunks.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { cachedRead } from "../engine/read-cache.ts";
import type { UserRow } from "../schema/database.ts";
import type { NewSession } from "../schema/sessions.ts";
import type { Db } from "../schema/types.ts";

/** A session's user and when the session ends (UNIX seconds). */
export type SessionUser = { user: UserRow; expiresAt: number };

/** Writes a session. */
export async function insertSession(db: Db, row: NewSession): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

const sessionUserQuery = prepared("sessionUser", (db, param: Placeholders<{ keyHash: string }>) =>
  db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .selectAll("users")
    .select("sessions.expires_at as session_expires_at")
    .where("sessions.key_hash", "=", param("keyHash")),
);

/**
 * The user of the session whose cookie value has this digest, with its end, expired or not (the
 * caller compares with its clock, so the read is cacheable): one indexed query, or none while
 * neither table is written (SQLite's read cache).
 */
export const getSessionUser = cachedRead(
  "session user",
  ["sessions", "users"],
  (keyHash: string) => keyHash,
  (found: SessionUser | undefined) => found && { user: { ...found.user }, expiresAt: found.expiresAt },
  async (db, keyHash): Promise<SessionUser | undefined> => {
    const row = (await sessionUserQuery(db, { keyHash }))[0];
    if (!row) return undefined;
    const { session_expires_at, ...user } = row;
    return { user, expiresAt: Number(session_expires_at) };
  },
);

/** Deletes one session (a logout); nothing when there is none. */
export async function deleteSession(db: Db, keyHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("key_hash", "=", keyHash).execute();
}

/** Deletes every session of these users (deactivation), or of one user but `exceptKeyHash` (a password change). */
export async function deleteUserSessions(db: Db, realmId: number, userIds: readonly number[], exceptKeyHash: string | null = null): Promise<void> {
  await eachChunk(idChunks(userIds), async (chunk) => {
    let query = db.deleteFrom("sessions").where("realm_id", "=", realmId).where("user_id", "in", chunk);
    if (exceptKeyHash !== null) query = query.where("key_hash", "<>", exceptKeyHash);
    await query.execute();
  });
}

/** Deletes the sessions ended by `nowSeconds` (of every realm: they log nobody in); returns how many. */
export async function deleteExpiredSessions(db: Db, nowSeconds: number): Promise<number> {
  const result = await db.deleteFrom("sessions").where("expires_at", "<=", nowSeconds).executeTakeFirst();
  return Number(result.numDeletedRows);
}

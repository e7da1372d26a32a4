/**
 * Rows the settings endpoints read and write: a user's row taken for a settings change, and the
 * realm's defaults for new users (realm_user_defaults).
 */
import type { Db } from "../schema/types.ts";
import type { UserRow } from "../schema/database.ts";
import { cachedRealmValue } from "../engine/read-cache.ts";

/**
 * A user's current row, write-locked until the transaction ends (a no-op update: PostgreSQL
 * locks the row, SQLite has one writer), so two settings changes cannot lose each other's keys.
 */
export function lockUser(db: Db, realmId: number, userId: number): Promise<UserRow> {
  return db
    .updateTable("users")
    .set((eb) => ({ settings: eb.ref("settings") }))
    .where("realm_id", "=", realmId)
    .where("id", "=", userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The realm's stored defaults for new users (a JSON object text; "{}" when none were set). */
export const getRealmUserDefaults = cachedRealmValue("realm user defaults", ["realm_user_defaults"], async (db, realmId): Promise<string> => {
  const row = await db.selectFrom("realm_user_defaults").select("settings").where("realm_id", "=", realmId).executeTakeFirst();
  return row?.settings ?? "{}";
});

/**
 * The stored defaults, write-locked until the transaction ends (created empty if missing), so
 * two administrators' changes cannot lose each other's keys.
 */
export async function lockRealmUserDefaults(db: Db, realmId: number): Promise<string> {
  await db.insertInto("realm_user_defaults").values({ realm_id: realmId, settings: "{}" }).onConflict((oc) => oc.column("realm_id").doNothing()).execute();
  const row = await db
    .updateTable("realm_user_defaults")
    .set((eb) => ({ settings: eb.ref("settings") }))
    .where("realm_id", "=", realmId)
    .returning("settings")
    .executeTakeFirstOrThrow();
  return row.settings;
}

/** Replaces the realm's stored defaults for new users. */
export async function setRealmUserDefaults(db: Db, realmId: number, settings: string): Promise<void> {
  await db.updateTable("realm_user_defaults").set({ settings }).where("realm_id", "=", realmId).execute();
}

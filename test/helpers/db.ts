/**
 * Direct access to a suite's store, for set-up no endpoint offers yet (realm and user settings,
 * channel permission groups) and for checking that a refused call wrote no rows.
 */
import { sql } from "kysely";
import { openStore } from "../../src/store/db.ts";
import type { Database } from "../../src/store/schema/database.ts";
import { getRealm, updateRealmSettings } from "../../src/store/realm/realms.ts";
import type { TestServer } from "./server.ts";

export type StoreDb = ReturnType<typeof openStore>["db"];

/**
 * Runs `fn` on the server's store, opened directly beside the server. On PostgreSQL the server
 * then confirms it has noticed the commits (its read cache hears of them by notification), so
 * the test's next request reads what `fn` wrote; a server that is not running has no cache.
 */
export async function withDb<T>(server: TestServer, fn: (db: StoreDb) => Promise<T>): Promise<T> {
  const store = openStore({ databaseUrl: server.store.databaseUrl, dataDir: server.store.dataDir });
  let result: T;
  try {
    result = await fn(store.db);
  } finally {
    await store.close();
  }
  if (server.store.databaseUrl) await server.api.post(null, "/__test/sync_read_cache", {}).catch(() => undefined);
  return result;
}

/** Row counts of tables, for "a failed call wrote nothing" checks. */
export function countRows(server: TestServer, tables: Array<keyof Database>): Promise<Record<string, number>> {
  return withDb(server, async (db) => {
    const out: Record<string, number> = {};
    for (const table of tables) {
      const row = await db.selectFrom(table).select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow();
      out[table] = Number(row.n);
    }
    return out;
  });
}

/** Merges values into the fixture realm's stored settings. */
export function setRealmSettings(server: TestServer, patch: Record<string, unknown>): Promise<void> {
  return withDb(server, async (db) => {
    const realm = await getRealm(db, server.fixtures.realmId);
    if (!realm) throw new Error("fixture realm missing");
    await updateRealmSettings(db, realm.id, { ...JSON.parse(realm.settings), ...patch });
  });
}

/** Merges values into a user's stored personal settings. */
export function setUserSettings(server: TestServer, userId: number, patch: Record<string, unknown>): Promise<void> {
  return withDb(server, async (db) => {
    const user = await db.selectFrom("users").select("settings").where("id", "=", userId).executeTakeFirstOrThrow();
    await db.updateTable("users").set({ settings: JSON.stringify({ ...JSON.parse(user.settings), ...patch }) }).where("id", "=", userId).execute();
  });
}

/** The id of a named group of the fixture realm (system groups: "role:members", ...). */
export function groupId(server: TestServer, name: string): Promise<number> {
  return withDb(server, async (db) => {
    const row = await db.selectFrom("user_groups").select("id").where("realm_id", "=", server.fixtures.realmId).where("name", "=", name).executeTakeFirstOrThrow();
    return row.id;
  });
}

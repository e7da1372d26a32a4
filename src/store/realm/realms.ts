/** Queries on realms (organizations). */
import { randomUUID } from "node:crypto";
import type { Db } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import type { Insertable } from "kysely";
import type { RealmRow, RealmTable } from "../schema/database.ts";
import { cachedRead } from "../engine/read-cache.ts";

const realmQuery = prepared("realm", (db, param: Placeholders<{ realmId: number }>) => db.selectFrom("realms").selectAll().where("id", "=", param("realmId")));

/** A realm by id. */
export const getRealm = cachedRead(
  "realm",
  ["realms"],
  (realmId: number) => String(realmId),
  (row: RealmRow | undefined) => row && { ...row },
  async (db, realmId) => (await realmQuery(db, { realmId }))[0],
);

/** The server's default realm: the first one created. */
export function getDefaultRealm(db: Db): Promise<RealmRow | undefined> {
  return db.selectFrom("realms").selectAll().orderBy("id").limit(1).executeTakeFirst();
}

/** Stores a realm's settings object (only values that differ from defaults are kept by callers). */
export async function updateRealmSettings(db: Db, realmId: number, settings: Record<string, unknown>): Promise<void> {
  await db.updateTable("realms").set({ settings: JSON.stringify(settings) }).where("id", "=", realmId).execute();
}

/** Inserts a realm (with a fresh UUID unless given) and returns its row. */
export function insertRealm(db: Db, values: Insertable<RealmTable>): Promise<RealmRow> {
  return db.insertInto("realms").values({ uuid: randomUUID(), ...values }).returningAll().executeTakeFirstOrThrow();
}

/** A realm's current row, write-locked until the transaction ends (a no-op update), for read-modify-write of its settings. */
export function lockRealm(db: Db, realmId: number): Promise<RealmRow> {
  return db
    .updateTable("realms")
    .set((eb) => ({ settings: eb.ref("settings") }))
    .where("id", "=", realmId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Writes a realm's name and description (the settings kept as columns). */
export async function updateRealmIdentity(db: Db, realmId: number, patch: { name?: string; description?: string }): Promise<void> {
  if (patch.name === undefined && patch.description === undefined) return;
  await db.updateTable("realms").set(patch).where("id", "=", realmId).execute();
}

/** Queries on realms (organizations). */
import type { Db } from "./types.ts";
import { prepared } from "./prepared.ts";
import type { RealmRow } from "./schema.ts";
import { cachedRead } from "./read-cache.ts";

const realmQuery = prepared((db, p: { realmId: number }) => db.selectFrom("realms").selectAll().where("id", "=", p.realmId));

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

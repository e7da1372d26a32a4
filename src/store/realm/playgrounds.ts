/** The realm's code playgrounds. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { RealmPlaygroundTable } from "../schema/database.ts";
import { cachedRealmRows } from "../engine/read-cache.ts";

/** A stored playground. */
type PlaygroundRow = Selectable<RealmPlaygroundTable>;

/** The realm's playgrounds, oldest first (every register reads them). */
export const listPlaygrounds = cachedRealmRows<PlaygroundRow>(
  "playgrounds",
  ["realm_playgrounds"],
  (db, realmId) => db.selectFrom("realm_playgrounds").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
);

/** A playground by id, if any. */
export function getPlayground(db: Db, realmId: number, id: number): Promise<PlaygroundRow | undefined> {
  return db.selectFrom("realm_playgrounds").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Whether a playground with this name exists for this language (Zulip's unique constraint). */
export async function playgroundExists(db: Db, realmId: number, name: string, language: string): Promise<boolean> {
  const row = await db
    .selectFrom("realm_playgrounds")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("name", "=", name)
    .where("pygments_language", "=", language)
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds a playground and returns its id. */
export async function insertPlayground(db: Db, realmId: number, p: { name: string; pygments_language: string; url_template: string }): Promise<number> {
  const row = await db.insertInto("realm_playgrounds").values({ realm_id: realmId, ...p }).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** Removes a playground. */
export async function deletePlayground(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("realm_playgrounds").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

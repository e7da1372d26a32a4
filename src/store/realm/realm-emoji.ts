/** Custom emoji of a realm; deactivated ones stay (old messages and reactions still show them). */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { RealmEmojiTable } from "../schema/database.ts";
import { cachedRealmRows } from "../engine/read-cache.ts";

/** A custom emoji row. */
export type RealmEmojiRow = Selectable<RealmEmojiTable>;

/** Every custom emoji of the realm, active or not, by id (every register reads it). */
export const listRealmEmoji = cachedRealmRows<RealmEmojiRow>(
  "realm emoji",
  ["realm_emoji"],
  (db, realmId) => db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
);

/** The active custom emoji with this name. */
export function getActiveRealmEmoji(db: Db, realmId: number, name: string): Promise<RealmEmojiRow | undefined> {
  return db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("name", "=", name).where("deactivated", "=", 0).executeTakeFirst();
}

/** A custom emoji by id, active or not. */
export function getRealmEmojiById(db: Db, realmId: number, id: number): Promise<RealmEmojiRow | undefined> {
  return db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Inserts an emoji; its file name is set once the id is known. */
export function insertRealmEmoji(db: Db, row: Omit<RealmEmojiRow, "id">): Promise<RealmEmojiRow> {
  return db.insertInto("realm_emoji").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Sets an emoji's stored file name. */
export async function setRealmEmojiFileName(db: Db, realmId: number, id: number, fileName: string): Promise<void> {
  await db.updateTable("realm_emoji").set({ file_name: fileName }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Marks an emoji deactivated. */
export async function deactivateRealmEmoji(db: Db, realmId: number, id: number): Promise<void> {
  await db.updateTable("realm_emoji").set({ deactivated: 1 }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

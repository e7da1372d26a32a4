/** The realm's linkifiers, kept in the order clients apply them. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import type { LinkifierTable } from "../schema/database.ts";
import { cachedRealmRows } from "../engine/read-cache.ts";

/** A stored linkifier. */
export type LinkifierRow = Selectable<LinkifierTable>;

const linkifiersQuery = prepared("linkifiers", (db, param: Placeholders<{ realmId: number }>) =>
  db.selectFrom("linkifiers").selectAll().where("realm_id", "=", param("realmId")).orderBy("order").orderBy("id"),
);

/** The realm's linkifiers in processing order (ties by id); the message renderer uses these. */
export const listLinkifiers = cachedRealmRows<LinkifierRow>(
  "linkifiers",
  ["linkifiers"],
  (db, realmId) => linkifiersQuery(db, { realmId }),
);

/** A linkifier by id, if any. */
export function getLinkifier(db: Db, realmId: number, id: number): Promise<LinkifierRow | undefined> {
  return db.selectFrom("linkifiers").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Whether another linkifier of the realm has this pattern (Zulip's unique constraint). */
export async function patternTaken(db: Db, realmId: number, pattern: string, exceptId: number | null): Promise<boolean> {
  let query = db.selectFrom("linkifiers").select("id").where("realm_id", "=", realmId).where("pattern", "=", pattern);
  if (exceptId !== null) query = query.where("id", "!=", exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** Adds a linkifier after the others and returns its id. */
export async function insertLinkifier(db: Db, realmId: number, l: { pattern: string; url_template: string }): Promise<number> {
  const last = await db.selectFrom("linkifiers").select((eb) => eb.fn.max("order").as("max")).where("realm_id", "=", realmId).executeTakeFirst();
  const order = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1;
  const row = await db.insertInto("linkifiers").values({ realm_id: realmId, ...l, order }).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** Replaces a linkifier's pattern and URL template. */
export async function updateLinkifier(db: Db, realmId: number, id: number, l: { pattern: string; url_template: string }): Promise<void> {
  await db.updateTable("linkifiers").set(l).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Removes a linkifier. */
export async function deleteLinkifier(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("linkifiers").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Gives each linkifier its position in `orderedIds` as its order. */
export async function reorderLinkifiers(db: Db, realmId: number, orderedIds: number[]): Promise<void> {
  for (const [order, id] of orderedIds.entries()) {
    await db.updateTable("linkifiers").set({ order }).where("realm_id", "=", realmId).where("id", "=", id).execute();
  }
}

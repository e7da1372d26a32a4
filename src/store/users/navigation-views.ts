/** Navigation views: a user's left-sidebar view settings, by URL fragment (FL 390). */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { NavigationViewTable } from "../schema/sidebar.ts";
import { cachedUserRows } from "../engine/read-cache.ts";

/** A stored navigation view. */
export type NavigationViewRow = Selectable<NavigationViewTable>;

/** A user's navigation views, oldest first. */
export const listNavigationViews = cachedUserRows("navigation views of a user", ["navigation_views"], (db, realmId, userId): Promise<NavigationViewRow[]> =>
  db.selectFrom("navigation_views").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute(),
);

/** One of the user's views by fragment. */
export function getNavigationView(db: Db, realmId: number, userId: number, fragment: string): Promise<NavigationViewRow | undefined> {
  return db
    .selectFrom("navigation_views")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("fragment", "=", fragment)
    .executeTakeFirst();
}

/** Inserts a view; undefined when the user already has one with this fragment (a concurrent add). */
export function insertNavigationView(db: Db, row: Omit<NavigationViewRow, "id">): Promise<NavigationViewRow | undefined> {
  return db
    .insertInto("navigation_views")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "fragment"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Changes a view's name and/or pin. */
export function updateNavigationView(db: Db, realmId: number, id: number, patch: { name?: string | null; is_pinned?: number }): Promise<NavigationViewRow> {
  return db.updateTable("navigation_views").set(patch).where("realm_id", "=", realmId).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a view. */
export async function deleteNavigationView(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("navigation_views").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

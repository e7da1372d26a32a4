/** Saved snippets: a user's reusable message texts. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { SavedSnippetTable } from "../schema/database.ts";
import { cachedUserRows } from "../engine/read-cache.ts";

/** A stored saved snippet. */
export type SavedSnippetRow = Selectable<SavedSnippetTable>;

/** A user's snippets, oldest first. */
export const listSavedSnippets = cachedUserRows("saved snippets of a user", ["saved_snippets"], (db, realmId, userId): Promise<SavedSnippetRow[]> =>
  db.selectFrom("saved_snippets").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute(),
);

/** One of the user's own snippets (another user's is not found). */
export function getOwnSavedSnippet(db: Db, realmId: number, userId: number, id: number): Promise<SavedSnippetRow | undefined> {
  return db.selectFrom("saved_snippets").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
}

/** Inserts a snippet. */
export function insertSavedSnippet(db: Db, row: Omit<SavedSnippetRow, "id">): Promise<SavedSnippetRow> {
  return db.insertInto("saved_snippets").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Changes a snippet's title and/or content. */
export function updateSavedSnippet(db: Db, realmId: number, id: number, patch: { title?: string; content?: string }): Promise<SavedSnippetRow> {
  return db.updateTable("saved_snippets").set(patch).where("realm_id", "=", realmId).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a snippet. */
export async function deleteSavedSnippet(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("saved_snippets").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

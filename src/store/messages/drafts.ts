/** Users' synchronised drafts. */
import type { Insertable, Updateable } from "kysely";
import { collectChunks, rowChunks } from "../engine/chunks.ts";
import type { DraftRow, DraftTable } from "../schema/drafts.ts";
import type { Db } from "../schema/types.ts";

/** A user's drafts by last edit time (ties by id), oldest first or newest first, at most `limit`. */
export function listDrafts(db: Db, realmId: number, userId: number, opts: { newestFirst: boolean; limit?: number }): Promise<DraftRow[]> {
  const direction = opts.newestFirst ? "desc" : "asc";
  let query = db.selectFrom("drafts").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("last_edit_time", direction).orderBy("id", direction);
  if (opts.limit !== undefined) query = query.limit(opts.limit);
  return query.execute();
}

/** One of the user's own drafts (another user's is not found). */
export function getOwnDraft(db: Db, realmId: number, userId: number, id: number): Promise<DraftRow | undefined> {
  return db.selectFrom("drafts").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
}

/** Inserts drafts; returns them in the order given (ids ascend in insertion order). */
export async function insertDrafts(db: Db, rows: ReadonlyArray<Insertable<DraftTable>>): Promise<DraftRow[]> {
  const inserted = await collectChunks(rowChunks(rows), (chunk) => db.insertInto("drafts").values(chunk).returningAll().execute());
  return inserted.sort((a, b) => a.id - b.id);
}

/** Replaces a draft's audience, topic, content and edit time. */
export function updateDraft(db: Db, realmId: number, id: number, patch: Updateable<DraftTable>): Promise<DraftRow> {
  return db.updateTable("drafts").set(patch).where("realm_id", "=", realmId).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a draft. */
export async function deleteDraft(db: Db, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("drafts").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Deletes every draft of a user (when they turn draft synchronisation off, as Zulip does). */
export async function deleteUserDrafts(db: Db, realmId: number, userId: number): Promise<void> {
  await db.deleteFrom("drafts").where("realm_id", "=", realmId).where("user_id", "=", userId).execute();
}

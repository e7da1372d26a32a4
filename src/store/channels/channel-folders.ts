/** Channel folders of a realm (FL 389) and the channels' folder_id. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { ChannelFolderTable } from "../schema/sidebar.ts";
import type { StreamRow } from "../schema/database.ts";
import { cachedRealmRows } from "../engine/read-cache.ts";

/** A stored channel folder. */
export type ChannelFolderRow = Selectable<ChannelFolderTable>;

/** A realm's folders in display order (every register reads them). */
export const listChannelFolders = cachedRealmRows<ChannelFolderRow>(
  "channel folders",
  ["channel_folders"],
  (db, realmId) => db.selectFrom("channel_folders").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute(),
);

/** One folder of the realm. */
export function getChannelFolder(db: Db, realmId: number, id: number): Promise<ChannelFolderRow | undefined> {
  return db.selectFrom("channel_folders").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Inserts a folder. */
export function insertChannelFolder(db: Db, row: Omit<ChannelFolderRow, "id">): Promise<ChannelFolderRow> {
  return db.insertInto("channel_folders").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Changes a folder's columns. */
export function updateChannelFolder(
  db: Db,
  realmId: number,
  id: number,
  patch: Partial<Omit<ChannelFolderRow, "id" | "realm_id">>,
): Promise<ChannelFolderRow> {
  return db.updateTable("channel_folders").set(patch).where("realm_id", "=", realmId).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Sets a channel's folder (null: none). */
export function setStreamFolder(db: Db, realmId: number, streamId: number, folderId: number | null): Promise<StreamRow> {
  return db.updateTable("streams").set({ folder_id: folderId }).where("realm_id", "=", realmId).where("id", "=", streamId).returningAll().executeTakeFirstOrThrow();
}

/** How many active (not archived) channels are in a folder. */
export async function countStreamsInFolder(db: Db, realmId: number, folderId: number): Promise<number> {
  const row = await db
    .selectFrom("streams")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("realm_id", "=", realmId)
    .where("folder_id", "=", folderId)
    .where("is_archived", "=", 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Folders holding a web-public, active channel: the ones spectators see. */
export async function webPublicFolderIds(db: Db, realmId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom("streams")
    .select("folder_id")
    .distinct()
    .where("realm_id", "=", realmId)
    .where("is_web_public", "=", 1)
    .where("is_archived", "=", 0)
    .where("folder_id", "is not", null)
    .execute();
  return new Set(rows.flatMap((r) => (r.folder_id === null ? [] : [r.folder_id])));
}

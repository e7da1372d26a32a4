/** A realm's default channels (Zulip's DefaultStream), which new users join. */
import type { Db } from "../schema/types.ts";
import { cachedRead } from "../engine/read-cache.ts";

/** Ids of the realm's default channels, ascending (Zulip's get_default_stream_ids_for_realm). */
export const defaultStreamIds = cachedRead(
  "default streams",
  ["default_streams"],
  (realmId: number) => String(realmId),
  (ids: number[]) => [...ids],
  async (db, realmId): Promise<number[]> => {
    const rows = await db.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realmId).orderBy("stream_id").execute();
    return rows.map((r) => r.stream_id);
  },
);

/** Makes a channel default; false when it already was. */
export async function insertDefaultStream(db: Db, realmId: number, streamId: number): Promise<boolean> {
  const rows = await db
    .insertInto("default_streams")
    .values({ realm_id: realmId, stream_id: streamId })
    .onConflict((oc) => oc.columns(["realm_id", "stream_id"]).doNothing())
    .returning("id")
    .execute();
  return rows.length > 0;
}

/** Removes a channel from the defaults; false when it was not one. */
export async function deleteDefaultStream(db: Db, realmId: number, streamId: number): Promise<boolean> {
  const result = await db.deleteFrom("default_streams").where("realm_id", "=", realmId).where("stream_id", "=", streamId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

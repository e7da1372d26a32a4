/** Aggregate figures about channels. */
import type { Db } from "../schema/types.ts";
import { receivingSubscriptions } from "./subscriptions.ts";
import { cachedRead } from "../engine/read-cache.ts";

/**
 * Active subscribers (active users only) of every channel of a realm that has any, kept while
 * subscriptions are unwritten (every register and channel list shows them). Shared: not to change.
 */
const realmSubscriberCounts = cachedRead(
  "subscriber counts of a realm",
  ["subscriptions"],
  (realmId: number) => String(realmId),
  (counts: ReadonlyMap<number, number>) => counts,
  async (db, realmId): Promise<ReadonlyMap<number, number>> => {
    const rows = await receivingSubscriptions(db, realmId)
      .select(["stream_id"])
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .groupBy("stream_id")
      .execute();
    return new Map(rows.map((row) => [row.stream_id, Number(row.count)]));
  },
);

/** Number of active subscribers (active users only) of each given stream. */
export async function subscriberCounts(db: Db, realmId: number, streamIds: number[]): Promise<Map<number, number>> {
  const all = await realmSubscriberCounts(db, realmId);
  return new Map(streamIds.map((id) => [id, all.get(id) ?? 0]));
}

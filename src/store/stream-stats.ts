/** Aggregate figures about channels. */
import type { Db } from "./db.ts";

/** Number of active subscribers (active users only) of each given stream. */
export async function subscriberCounts(db: Db, realmId: number, streamIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(streamIds.map((id) => [id, 0]));
  if (streamIds.length === 0) return out;
  const rows = await db
    .selectFrom("subscriptions")
    .select(["stream_id"])
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("realm_id", "=", realmId)
    .where("stream_id", "in", streamIds)
    .where("active", "=", 1)
    .where("is_user_active", "=", 1)
    .groupBy("stream_id")
    .execute();
  for (const row of rows) out.set(row.stream_id, Number(row.count));
  return out;
}

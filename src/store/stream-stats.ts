/** Aggregate figures about channels. */
import type { Db } from "./types.ts";
import { receivingSubscriptions } from "./subscriptions.ts";
import { collectChunks, idChunks } from "./chunks.ts";

/** Number of active subscribers (active users only) of each given stream. */
export async function subscriberCounts(db: Db, realmId: number, streamIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(streamIds.map((id) => [id, 0]));
  const rows = await collectChunks(idChunks(streamIds), (chunk) =>
    receivingSubscriptions(db, realmId)
      .select(["stream_id"])
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("stream_id", "in", chunk)
      .groupBy("stream_id")
      .execute(),
  );
  for (const row of rows) out.set(row.stream_id, Number(row.count));
  return out;
}

/** What presenting channels reads besides their rows (present/streams.ts takes it loaded). */
import type { Db } from "../schema/types.ts";
import type { StreamRow } from "../schema/database.ts";
import { settingGroupIndex, type GroupIndex } from "../groups/group-index.ts";
import { subscriberCounts } from "../channels/stream-stats.ts";

/** Subscriber counts of the channels, and the groups their permission settings name. */
export type StreamLookups = { subscriberCounts: Map<number, number>; settingGroups: GroupIndex };

/** The group ids a channel's permission settings hold (its `can_*_group_id` columns). */
function settingGroupIds(stream: StreamRow): number[] {
  return Object.entries(stream).flatMap(([column, value]) => (column.startsWith("can_") && column.endsWith("_group_id") && typeof value === "number" ? [value] : []));
}

/** Loads what presenting these channels of one realm needs. */
export async function streamLookups(db: Db, realmId: number, streams: readonly StreamRow[]): Promise<StreamLookups> {
  const groupIds = streams.flatMap(settingGroupIds);
  const [counts, settingGroups] = await Promise.all([
    subscriberCounts(db, realmId, streams.map((s) => s.id)),
    settingGroupIndex(db, realmId, groupIds),
  ]);
  return { subscriberCounts: counts, settingGroups };
}

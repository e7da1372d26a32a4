/** What presenting channels reads besides their rows (present/streams.ts takes it loaded). */
import type { Db } from "./types.ts";
import type { StreamRow } from "./schema.ts";
import { settingGroupIndex, type GroupIndex } from "./group-index.ts";
import { subscriberCounts } from "./stream-stats.ts";
import type { StreamSettingColumn } from "./user-groups.ts";

/** Subscriber counts of the channels, and the groups their permission settings name. */
export type StreamLookups = { subscriberCounts: Map<number, number>; settingGroups: GroupIndex };

/** Every channel permission-setting column. */
const STREAM_SETTING_COLUMNS: readonly StreamSettingColumn[] = [
  "can_administer_channel_group_id",
  "can_send_message_group_id",
  "can_add_subscribers_group_id",
  "can_remove_subscribers_group_id",
  "can_subscribe_group_id",
  "can_delete_any_message_group_id",
  "can_delete_own_message_group_id",
  "can_move_messages_out_of_channel_group_id",
  "can_move_messages_within_channel_group_id",
  "can_resolve_topics_group_id",
];

/** Loads what presenting these channels of one realm needs. */
export async function streamLookups(db: Db, realmId: number, streams: readonly StreamRow[]): Promise<StreamLookups> {
  const groupIds = streams.flatMap((s) => STREAM_SETTING_COLUMNS.map((col) => s[col]));
  const [counts, settingGroups] = await Promise.all([
    subscriberCounts(db, realmId, streams.map((s) => s.id)),
    settingGroupIndex(db, realmId, groupIds),
  ]);
  return { subscriberCounts: counts, settingGroups };
}

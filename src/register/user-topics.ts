/** The register snapshot's `user_topics` and the deprecated `muted_topics` (also sent as an event). */
import type { Db } from "../store/schema/types.ts";
import type { RealmRow } from "../store/schema/database.ts";
import { getStreamsByIds } from "../store/channels/streams.ts";
import { userTopicRows, VISIBILITY_POLICY } from "../store/messages/user-topics.ts";

/** The user's topic policies as the register snapshot's `user_topics` (archived channels left out). */
export async function userTopicsState(db: Db, realm: RealmRow, userId: number): Promise<Array<{ stream_id: number; topic_name: string; last_updated: number; visibility_policy: number }>> {
  const rows = await userTopicRows(db, realm.id, userId);
  const live = new Set((await getStreamsByIds(db, realm.id, [...new Set(rows.map((r) => r.stream_id))])).filter((s) => s.is_archived === 0).map((s) => s.id));
  return rows
    .filter((r) => live.has(r.stream_id) && r.visibility_policy !== VISIBILITY_POLICY.inherit)
    .map((r) => ({ stream_id: r.stream_id, topic_name: r.topic, last_updated: r.last_updated, visibility_policy: r.visibility_policy }));
}

/** The deprecated `muted_topics` list: [channel name, topic, time muted] of each muted topic. */
export async function mutedTopicsState(db: Db, realm: RealmRow, userId: number): Promise<Array<[string, string, number]>> {
  const rows = (await userTopicRows(db, realm.id, userId)).filter((r) => r.visibility_policy === VISIBILITY_POLICY.muted);
  const streams = new Map((await getStreamsByIds(db, realm.id, [...new Set(rows.map((r) => r.stream_id))])).map((s) => [s.id, s]));
  return rows.flatMap((r): Array<[string, string, number]> => {
    const stream = streams.get(r.stream_id);
    return stream && stream.is_archived === 0 ? [[stream.name, r.topic, r.last_updated]] : [];
  });
}

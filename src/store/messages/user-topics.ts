/** Per-user topic visibility policies (Zulip's UserTopic); topics compare case-insensitively. */
import { sql } from "kysely";
import type { Db } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import type { UserTopicTable } from "../schema/database.ts";
import type { Selectable } from "kysely";
import { cachedRead, copyRows } from "../engine/read-cache.ts";
import { collectChunks, valueChunks } from "../engine/chunks.ts";

/** Zulip's visibility_policy values. */
export const VISIBILITY_POLICY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

type UserTopicRow = Selectable<UserTopicTable>;

const userTopicQuery = prepared("userTopic", (db, param: Placeholders<{ realmId: number; userId: number; streamId: number; loweredTopic: string }>) =>
  db
    .selectFrom("user_topics")
    .selectAll()
    .where("realm_id", "=", param("realmId"))
    .where("user_id", "=", param("userId"))
    .where("stream_id", "=", param("streamId"))
    .where(sql<string>`lower(topic)`, "=", param("loweredTopic")),
);

/** A user's row for one topic of a channel, if any. */
export const getUserTopic = cachedRead(
  "user topic",
  ["user_topics"],
  (realmId: number, userId: number, streamId: number, topic: string) => `${realmId}/${userId}/${streamId}/${topic.toLowerCase()}`,
  (row: UserTopicRow | undefined) => row && { ...row },
  async (db, realmId, userId, streamId, topic) => (await userTopicQuery(db, { realmId, userId, streamId, loweredTopic: topic.toLowerCase() }))[0],
);

/** Every topic row of a user. */
export const userTopicRows = cachedRead(
  "user topics of a user",
  ["user_topics"],
  (realmId: number, userId: number) => `${realmId}/${userId}`,
  copyRows<UserTopicRow>,
  (db, realmId, userId) => db.selectFrom("user_topics").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute(),
);

/**
 * Sets a user's policy for a topic: inherit deletes the row, anything else inserts or updates it
 * in one upsert (keeping the stored topic's spelling when one exists, as Zulip does), so two
 * requests setting the same new topic at once both succeed.
 */
export async function setUserTopic(db: Db, realmId: number, row: { userId: number; streamId: number; topic: string; policy: number; now: number }): Promise<void> {
  if (row.policy === VISIBILITY_POLICY.inherit) {
    await db
      .deleteFrom("user_topics")
      .where("realm_id", "=", realmId)
      .where("user_id", "=", row.userId)
      .where("stream_id", "=", row.streamId)
      .where(sql<string>`lower(topic)`, "=", row.topic.toLowerCase())
      .execute();
    return;
  }
  await db
    .insertInto("user_topics")
    .values({ realm_id: realmId, user_id: row.userId, stream_id: row.streamId, topic: row.topic, visibility_policy: row.policy, last_updated: row.now })
    // The target names the columns of the unique index user_topics_unique.
    .onConflict((oc) =>
      oc.expression(sql`user_id, stream_id, lower(topic)`).doUpdateSet((eb) => ({ visibility_policy: eb.ref("excluded.visibility_policy"), last_updated: eb.ref("excluded.last_updated") })),
    )
    .execute();
}

/**
 * Active human subscribers of the channel who follow one of the topics (case-insensitive), each
 * once: the only users a resolve notice stays unread for.
 */
export async function topicFollowerIds(db: Db, realmId: number, streamId: number, topics: string[]): Promise<number[]> {
  const rows = await collectChunks(valueChunks(topics.map((t) => t.toLowerCase())), (chunk) =>
    db
    .selectFrom("user_topics")
    .innerJoin("subscriptions", (join) => join.onRef("subscriptions.user_id", "=", "user_topics.user_id").onRef("subscriptions.stream_id", "=", "user_topics.stream_id"))
    .innerJoin("users", "users.id", "user_topics.user_id")
    .select("user_topics.user_id")
    .where("user_topics.realm_id", "=", realmId)
    .where("user_topics.stream_id", "=", streamId)
    .where(sql<string>`lower(user_topics.topic)`, "in", chunk)
    .where("user_topics.visibility_policy", "=", VISIBILITY_POLICY.followed)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .where("users.is_bot", "=", 0)
    .execute(),
  );
  return [...new Set(rows.map((r) => r.user_id))];
}

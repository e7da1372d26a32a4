/**
 * Muting conditions (Zulip's exclude_stream_and_topic_mutes): `in:home` and the first-unread
 * anchor leave out muted topics, and messages of muted channels unless their topic is unmuted or
 * followed. Channel muting does not apply to a narrow of that channel itself.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { VISIBILITY_POLICY } from "../store/user-topics.ts";
import type { NarrowScope } from "./lookups.ts";

const m = (column: string) => sql.ref(`messages.${column}`);

function topicPolicySql(userId: number, policies: readonly number[]): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from user_topics ut where ut.user_id = ${userId} and ut.stream_id = ${m("stream_id")}
    and lower(ut.topic) = lower(${m("topic")}) and ut.visibility_policy in (${sql.join(policies)}))`;
}

/** SQL: the message is not hidden by the viewer's muting; `channelStreamId` is the narrow's channel, if any. */
export async function mutingSql(scope: NarrowScope, channelStreamId: number | null): Promise<Expression<SqlBool>> {
  const userId = scope.viewer.id;
  const notMutedTopic = sql<SqlBool>`not ${topicPolicySql(userId, [VISIBILITY_POLICY.muted])}`;
  if (channelStreamId !== null) return notMutedTopic;
  const muted = await scope.db
    .selectFrom("subscriptions")
    .select("stream_id")
    .where("realm_id", "=", scope.realmId)
    .where("user_id", "=", userId)
    .where("active", "=", 1)
    .where("is_muted", "=", 1)
    .execute();
  if (muted.length === 0) return notMutedTopic;
  const mutedIds = muted.map((r) => r.stream_id);
  const unmutedTopic = topicPolicySql(userId, [VISIBILITY_POLICY.unmuted, VISIBILITY_POLICY.followed]);
  return sql<SqlBool>`(${notMutedTopic} and not (${m("stream_id")} is not null and ${m("stream_id")} in (${sql.join(mutedIds)}) and not ${unmutedTopic}))`;
}

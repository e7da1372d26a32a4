/**
 * Which messages a narrow shows its viewer, as SQL over `messages`. Visibility: those they
 * received (sent, a subscription period covering the message, or membership of its direct group),
 * those they keep a `historical` flag row for (starred or reacted to from shared history), and,
 * when the narrow allows it (include_history), the history of channels whose history they may
 * read. Muting (Zulip's exclude_stream_and_topic_mutes): muted topics, and messages of muted
 * channels unless their topic is unmuted or followed.
 */
import { sql, type SqlBool } from "kysely";
import { receivedBySql, storedFlagSql } from "./message-flags.ts";
import type { MessageCondition } from "./message-narrow.ts";
import { MESSAGE_FLAG } from "../schema/database.ts";
import { VISIBILITY_POLICY } from "./user-topics.ts";
import { idListSql } from "../engine/chunks.ts";

const m = (column: string) => sql.ref(`messages.${column}`);

/** SQL: the viewer's personal history holds the message (Zulip: a UserMessage row exists). */
export function personalHistorySql(viewerId: number): MessageCondition {
  return sql<SqlBool>`(${receivedBySql(viewerId)} or ${storedFlagSql(viewerId, MESSAGE_FLAG.historical)})`;
}

/** SQL: the viewer may see the message: personal history, or the history of `historyStreamIds`. */
export function visibleSql(viewerId: number, historyStreamIds: readonly number[]): MessageCondition {
  const personal = personalHistorySql(viewerId);
  if (historyStreamIds.length === 0) return personal;
  const stream = m("stream_id");
  return sql<SqlBool>`(${personal} or (${stream} is not null and ${stream} in (${idListSql(historyStreamIds)})))`;
}

function topicPolicySql(userId: number, policies: readonly number[]): MessageCondition {
  return sql<SqlBool>`exists (select 1 from user_topics ut where ut.user_id = ${userId} and ut.stream_id = ${m("stream_id")}
    and lower(ut.topic) = lower(${m("topic")}) and ut.visibility_policy in (${sql.join(policies)}))`;
}

/** SQL: the message's topic is not muted by the user. */
export function notMutedTopicSql(userId: number): MessageCondition {
  return sql<SqlBool>`not ${topicPolicySql(userId, [VISIBILITY_POLICY.muted])}`;
}

/** SQL: neither a muted topic nor, unless its topic is unmuted or followed, a message of `mutedStreamIds`. */
export function unmutedSql(userId: number, mutedStreamIds: readonly number[]): MessageCondition {
  const notMutedTopic = notMutedTopicSql(userId);
  if (mutedStreamIds.length === 0) return notMutedTopic;
  const unmutedTopic = topicPolicySql(userId, [VISIBILITY_POLICY.unmuted, VISIBILITY_POLICY.followed]);
  return sql<SqlBool>`(${notMutedTopic} and not (${m("stream_id")} is not null and ${m("stream_id")} in (${idListSql(mutedStreamIds)}) and not ${unmutedTopic}))`;
}

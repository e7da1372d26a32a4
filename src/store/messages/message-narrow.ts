/**
 * The conditions over `messages` that narrow terms resolve to (the SQL of Zulip's NarrowBuilder).
 * Each takes resolved values (ids, names, flags); which one a term means, and the lookups and
 * errors that decides it, belong to narrow/build.ts.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { SearchQuery } from "../../model/search-words.ts";
import { VISIBILITY_POLICY } from "./user-topics.ts";
import { idListSql } from "../engine/chunks.ts";

/** SQL: a condition over the `messages` table of a query. */
export type MessageCondition = Expression<SqlBool>;

/** A built narrow, as the message queries (store/messages/message-queries.ts) read it. */
export type BuiltNarrow = {
  /** The terms ANDed (true for an empty narrow); search terms are not included, see `search`. */
  where: MessageCondition;
  /** The joined search operands, or null without a `search` term. */
  search: SearchQuery | null;
  /** Zulip's include_history: channel history beyond what the viewer received may be shown. */
  includeHistory: boolean;
  /** Channels whose unreceived history the viewer may see (meaningful with includeHistory). */
  historyStreamIds: number[];
  /** The first channel term's channel, for muting rules. */
  channelStreamId: number | null;
  /** SQL: the viewer may see the message in this narrow's results (store/messages/narrow-visibility.ts). */
  visible: MessageCondition;
  /** SQL: the message is in the viewer's personal history (received, or a historical row). */
  personal: MessageCondition;
  /** SQL: the message is not hidden by the viewer's muting (for the first-unread anchor). */
  unmuted: () => Promise<MessageCondition>;
};

/** What a `has:` operand may ask for. */
type HasOperand = "reaction" | "attachment" | "image" | "link";

const m = (column: string) => sql.ref(`messages.${column}`);

/** SQL: no message (a term that can match nothing). */
export function noMessagesSql(): MessageCondition {
  return sql<SqlBool>`1 = 0`;
}

/** SQL: every message (an empty narrow, `in:all`). */
export function allMessagesSql(): MessageCondition {
  return sql<SqlBool>`1 = 1`;
}

/** SQL: a term's condition, parenthesized, or negated for a negated term. */
export function termSql(condition: MessageCondition, negated: boolean): MessageCondition {
  return negated ? sql<SqlBool>`not (${condition})` : sql<SqlBool>`(${condition})`;
}

/** SQL: all of `conditions` (every message when there are none). */
export function allOfSql(conditions: readonly MessageCondition[]): MessageCondition {
  return conditions.length === 0 ? allMessagesSql() : sql<SqlBool>`${sql.join(conditions, sql` and `)}`;
}

/** SQL: `has:reaction`, `has:attachment`, `has:image`, `has:link`. */
export function hasSql(operand: HasOperand): MessageCondition {
  if (operand === "reaction") return sql<SqlBool>`exists (select 1 from reactions r where r.message_id = ${m("id")})`;
  return sql<SqlBool>`${m(`has_${operand}`)} = 1`;
}

/** SQL: a direct message (`is:dm`, or `dm-including` the viewer themself). */
export function directMessageSql(): MessageCondition {
  return sql<SqlBool>`${m("stream_id")} is null`;
}

/** SQL: a channel message whose topic starts with `prefix` (`is:resolved`; the prefix holds no LIKE wildcard). */
export function topicPrefixSql(prefix: string): MessageCondition {
  return sql<SqlBool>`${m("stream_id")} is not null and ${m("topic")} like ${`${prefix}%`}`;
}

/** SQL: the user follows the message's topic (`is:followed`). */
export function followedTopicSql(userId: number): MessageCondition {
  return sql<SqlBool>`exists (select 1 from user_topics ut where ut.user_id = ${userId} and ut.stream_id = ${m("stream_id")}
    and lower(ut.topic) = lower(${m("topic")}) and ut.visibility_policy = ${VISIBILITY_POLICY.followed})`;
}

/** SQL: a message of the channel `streamId`. */
export function streamSql(streamId: number): MessageCondition {
  return sql<SqlBool>`(${m("stream_id")} is not null and ${m("stream_id")} = ${streamId})`;
}

/** SQL: a message of one of the channels `streamIds` (none: no message). */
export function inStreamsSql(streamIds: readonly number[]): MessageCondition {
  if (streamIds.length === 0) return noMessagesSql();
  return sql<SqlBool>`(${m("stream_id")} is not null and ${m("stream_id")} in (${idListSql(streamIds)}))`;
}

/** SQL: the message's topic is `topic`, case-insensitively. */
export function topicSql(topic: string): MessageCondition {
  return sql<SqlBool>`lower(${m("topic")}) = lower(${topic})`;
}

/** SQL: the message was sent by `senderId`. */
export function senderSql(senderId: number): MessageCondition {
  return sql<SqlBool>`${m("sender_id")} = ${senderId}`;
}

/** SQL: the message with id `messageId`. */
export function messageIdSql(messageId: number): MessageCondition {
  return sql<SqlBool>`${m("id")} = ${messageId}`;
}

/** SQL: a message of the conversation `recipientId`. */
export function recipientSql(recipientId: number): MessageCondition {
  return sql<SqlBool>`${m("recipient_id")} = ${recipientId}`;
}

/** SQL: a message of one of the conversations `recipientIds` (none: no message). */
export function inRecipientsSql(recipientIds: readonly number[]): MessageCondition {
  return recipientIds.length === 0 ? noMessagesSql() : sql<SqlBool>`${m("recipient_id")} in (${idListSql(recipientIds)})`;
}

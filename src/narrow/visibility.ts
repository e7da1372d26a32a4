/**
 * Which messages a viewer may see, as SQL over `messages`: those they received (sent, a
 * subscription period covering the message, or membership of its direct group), those they
 * keep a `historical` flag row for (starred or reacted to from shared history), and, when the
 * narrow allows it (include_history), the history of channels whose history they may read.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { receivedBySql, storedFlagSql } from "../store/message-flags.ts";
import { MESSAGE_FLAG } from "../store/schema.ts";

/** SQL: the viewer's personal history holds the message (Zulip: a UserMessage row exists). */
export function personalHistorySql(viewerId: number): Expression<SqlBool> {
  return sql<SqlBool>`(${receivedBySql(viewerId)} or ${storedFlagSql(viewerId, MESSAGE_FLAG.historical)})`;
}

/** SQL: the viewer may see the message: personal history, or the history of `historyStreamIds`. */
export function visibleSql(viewerId: number, historyStreamIds: readonly number[]): Expression<SqlBool> {
  const personal = personalHistorySql(viewerId);
  if (historyStreamIds.length === 0) return personal;
  const stream = sql.ref("messages.stream_id");
  return sql<SqlBool>`(${personal} or (${stream} is not null and ${stream} in (${sql.join(historyStreamIds)})))`;
}

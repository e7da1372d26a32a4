/**
 * Per-user message flags. Rows in user_message_flags exist only where a user's flags differ
 * from the default (recipient: 0, unread; sender: read). Who received a channel message follows
 * from subscription periods; a direct message's recipients are its direct group's members.
 * This module turns that into Zulip's flag lists, and gives query builders SQL for
 * "received by user" and "unread for user".
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { Db } from "../schema/types.ts";
import { MESSAGE_COLUMNS, MESSAGE_FLAG, RECIPIENT_TYPE, type Database, type MessageRow } from "../schema/database.ts";
import { collectChunks, idChunks } from "../engine/chunks.ts";

/** One of Zulip's API flag names (a key of MESSAGE_FLAG). */
type FlagName = keyof typeof MESSAGE_FLAG;

/** The API flag names, in Zulip's order. */
const FLAG_NAMES: readonly FlagName[] = ["read", "starred", "collapsed", "mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "has_alert_word", "historical"];

/** The fields of a message that its flags depend on. */
export type FlagMessage = Pick<MessageRow, "id" | "sender_id" | "stream_id" | "recipient_id" | "stream_wildcard_mention">;

/** How a user stands to one message: received it or not, and any stored flag row. */
type FlagInputs = { received: boolean; stored: number | undefined };

/** The default flags of a received message: read for its sender, unread otherwise. */
export function defaultFlagBits(userId: number, message: Pick<MessageRow, "sender_id">): number {
  return message.sender_id === userId ? MESSAGE_FLAG.read : 0;
}

/**
 * A user's effective flag bits for a message. A received message: the stored row, else the
 * default, plus the channel-wide wildcard bit. A message the user can see without having received
 * it (public history): the stored row (starring creates one), else read + historical.
 */
export function effectiveFlagBits(userId: number, message: FlagMessage, inputs: FlagInputs): number {
  if (!inputs.received) return inputs.stored ?? MESSAGE_FLAG.read | MESSAGE_FLAG.historical;
  const bits = inputs.stored ?? defaultFlagBits(userId, message);
  return message.stream_wildcard_mention === 1 ? bits | MESSAGE_FLAG.stream_wildcard_mentioned : bits;
}

const namesByBits = new Map<number, readonly string[]>();

/**
 * Zulip's flag list for bits, with the deprecated `wildcard_mentioned` (FL 224) appended. One
 * frozen list per combination, shared: a message event lists one per recipient.
 */
export function flagNames(bits: number): readonly string[] {
  let names = namesByBits.get(bits);
  if (!names) {
    const list: string[] = FLAG_NAMES.filter((name) => (bits & MESSAGE_FLAG[name]) !== 0);
    if ((bits & (MESSAGE_FLAG.stream_wildcard_mentioned | MESSAGE_FLAG.topic_wildcard_mentioned)) !== 0) list.push("wildcard_mentioned");
    names = Object.freeze(list);
    namesByBits.set(bits, names);
  }
  return names;
}

/** Stored flag rows of one user for the given messages. */
export async function storedFlags(db: Db, userId: number, messageIds: number[]): Promise<Map<number, number>> {
  const rows = await collectChunks(idChunks(messageIds), (chunk) =>
    db.selectFrom("user_message_flags").select(["message_id", "flags"]).where("user_id", "=", userId).where("message_id", "in", chunk).execute(),
  );
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

/** Stored flag rows of one message (only those of `userIds` when given). */
export function messageFlagRows(db: Db, messageId: number, userIds?: number[]): Promise<Array<{ user_id: number; flags: number }>> {
  const query = db.selectFrom("user_message_flags").select(["user_id", "flags"]).where("message_id", "=", messageId);
  if (userIds === undefined) return query.execute();
  return collectChunks(idChunks(userIds), (chunk) => query.where("user_id", "in", chunk).execute());
}

/** Stored flag rows of the given messages, every user's. */
export function flagRowsOfMessages(db: Db, messageIds: number[]): Promise<Array<{ user_id: number; message_id: number; flags: number }>> {
  return collectChunks(idChunks(messageIds), (chunk) => db.selectFrom("user_message_flags").select(["user_id", "message_id", "flags"]).where("message_id", "in", chunk).execute());
}

/** Users holding a flag row for any of the messages. */
export async function flagRowUserIds(db: Db, messageIds: number[]): Promise<Set<number>> {
  const rows = await collectChunks(idChunks(messageIds), (chunk) => db.selectFrom("user_message_flags").select("user_id").distinct().where("message_id", "in", chunk).execute());
  return new Set(rows.map((r) => r.user_id));
}

/** Ids of the given messages that the user received (sent, a covering subscription period, or a DM group they belong to). */
export async function receivedIds(db: Db, userId: number, messages: FlagMessage[]): Promise<Set<number>> {
  const out = new Set<number>();
  const channel = messages.filter((m) => m.sender_id !== userId && m.stream_id !== null);
  const direct = messages.filter((m) => m.sender_id !== userId && m.stream_id === null);
  for (const m of messages) if (m.sender_id === userId) out.add(m.id);
  if (channel.length > 0) {
    const periods = await collectChunks(idChunks(channel.map((m) => m.stream_id ?? 0)), (chunk) =>
      db.selectFrom("subscription_periods").select(["stream_id", "first_message_id", "last_message_id"]).where("user_id", "=", userId).where("stream_id", "in", chunk).execute(),
    );
    const byStream = new Map<number, typeof periods>();
    for (const p of periods) byStream.set(p.stream_id, [...(byStream.get(p.stream_id) ?? []), p]);
    for (const m of channel) {
      const own = byStream.get(m.stream_id ?? 0) ?? [];
      if (own.some((p) => p.first_message_id <= m.id && (p.last_message_id === null || m.id <= p.last_message_id))) out.add(m.id);
    }
  }
  if (direct.length > 0) {
    const rows = await collectChunks(idChunks(direct.map((m) => m.recipient_id)), (chunk) =>
      db
        .selectFrom("recipients")
        .innerJoin("direct_group_members", "direct_group_members.group_id", "recipients.type_id")
        .select("recipients.id")
        .where("recipients.type", "=", RECIPIENT_TYPE.direct)
        .where("recipients.id", "in", chunk)
        .where("direct_group_members.user_id", "=", userId)
        .execute(),
    );
    const mine = new Set(rows.map((r) => r.id));
    for (const m of direct) if (mine.has(m.recipient_id)) out.add(m.id);
  }
  return out;
}

/** The columns `withViewerFlags` adds: the viewer's flag row (if any) and whether they received the message. */
type ViewerFlagColumns = { viewer_flags: number | null; viewer_received: number };

/** A message row read with the viewer's flag inputs (see withViewerFlags). */
export type RowWithViewerFlags = MessageRow & ViewerFlagColumns;

/**
 * Widens a query over `messages` to every message column and the viewer's flag inputs (their
 * flag row, joined, and whether they received the message), so a message list's flags come
 * with its rows instead of from two more queries.
 */
export function withViewerFlags<Q extends SelectQueryBuilder<Database, "messages", object>>(query: Q, viewerId: number): SelectQueryBuilder<Database, "messages", RowWithViewerFlags> {
  return (query as unknown as SelectQueryBuilder<Database, "messages", object>)
    .leftJoin("user_message_flags as vf", (j) => j.onRef("vf.message_id", "=", "messages.id").on("vf.user_id", "=", viewerId))
    .select(MESSAGE_COLUMNS.map((c) => `messages.${c}` as const))
    .select(["vf.flags as viewer_flags", sql<number>`case when ${receivedBySql(viewerId)} then 1 else 0 end`.as("viewer_received")]) as unknown as SelectQueryBuilder<
    Database,
    "messages",
    RowWithViewerFlags
  >;
}

/** Splits rows read through withViewerFlags into message rows and the viewer's flag list of each. */
export function splitViewerFlags(viewerId: number, found: readonly RowWithViewerFlags[]): { rows: MessageRow[]; flags: Map<number, readonly string[]> } {
  const rows: MessageRow[] = [];
  const flags = new Map<number, readonly string[]>();
  for (const { viewer_flags, viewer_received, ...row } of found) {
    rows.push(row);
    flags.set(row.id, flagNames(effectiveFlagBits(viewerId, row, { received: Number(viewer_received) === 1, stored: viewer_flags ?? undefined })));
  }
  return { rows, flags };
}

/** Messages by id (ascending; unknown ids skipped), each with the viewer's flag list, in one query per chunk. */
export async function messagesWithFlags(db: Db, realmId: number, viewerId: number, ids: readonly number[]): Promise<{ rows: MessageRow[]; flags: Map<number, readonly string[]> }> {
  const found = await collectChunks(idChunks(ids), (chunk) =>
    withViewerFlags(db.selectFrom("messages"), viewerId).where("messages.realm_id", "=", realmId).where("messages.id", "in", chunk).orderBy("messages.id").execute(),
  );
  return splitViewerFlags(viewerId, found);
}

/** Effective flag bits of one user for each message (by message id). */
async function flagBitsFor(db: Db, userId: number, messages: FlagMessage[]): Promise<Map<number, number>> {
  const ids = messages.map((m) => m.id);
  const [stored, received] = await Promise.all([storedFlags(db, userId, ids), receivedIds(db, userId, messages)]);
  return new Map(messages.map((m) => [m.id, effectiveFlagBits(userId, m, { received: received.has(m.id), stored: stored.get(m.id) })]));
}

/** Zulip's `flags` list of one user for each message (by message id). */
export async function flagsFor(db: Db, userId: number, messages: FlagMessage[]): Promise<Map<number, readonly string[]>> {
  const bits = await flagBitsFor(db, userId, messages);
  return new Map([...bits].map(([id, b]) => [id, flagNames(b)]));
}

/** A column of the messages table, under the alias a query gives it. */
function col(alias: string, column: keyof MessageRow): RawBuilder<number> {
  return sql.ref(`${alias}.${column}`);
}

/**
 * SQL: the user received the message (`alias` names the messages table in the query): they sent
 * it, a subscription period of theirs covers it, or they belong to its direct group.
 */
export function receivedBySql(userId: number, alias = "messages"): Expression<SqlBool> {
  return sql<SqlBool>`(${col(alias, "sender_id")} = ${userId}
    or (${col(alias, "stream_id")} is not null and exists (select 1 from subscription_periods sp
      where sp.user_id = ${userId} and sp.stream_id = ${col(alias, "stream_id")}
        and sp.first_message_id <= ${col(alias, "id")} and (sp.last_message_id is null or ${col(alias, "id")} <= sp.last_message_id)))
    or (${col(alias, "stream_id")} is null and exists (select 1 from recipients r
      join direct_group_members dgm on dgm.group_id = r.type_id
      where r.id = ${col(alias, "recipient_id")} and r.type = ${RECIPIENT_TYPE.direct} and dgm.user_id = ${userId})))`;
}

/**
 * SQL: the user has a stored flag row for the message with any of `bits` set. The bits are a
 * literal: for `historical`, the partial index user_message_flags_historical then answers
 * (SQLite matches a partial index by its text), not every flag row of the user.
 */
export function storedFlagSql(userId: number, bits: number, alias = "messages"): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from user_message_flags umf
    where umf.user_id = ${userId} and umf.message_id = ${col(alias, "id")} and (umf.flags & ${sql.lit(bits)}) <> 0)`;
}

/**
 * SQL: the message is unread for the user: a stored row without `read`, or no row at all on a
 * message they received and did not send.
 */
export function unreadForSql(userId: number, alias = "messages"): Expression<SqlBool> {
  const read = MESSAGE_FLAG.read;
  return sql<SqlBool>`(exists (select 1 from user_message_flags umf
      where umf.user_id = ${userId} and umf.message_id = ${col(alias, "id")} and (umf.flags & ${read}) = 0)
    or (${col(alias, "sender_id")} <> ${userId}
      and not exists (select 1 from user_message_flags umf2 where umf2.user_id = ${userId} and umf2.message_id = ${col(alias, "id")})
      and ${receivedBySql(userId, alias)}))`;
}

/**
 * SQL: the user's effective flags include `flag`. `read` and `historical` follow the defaults;
 * `stream_wildcard_mentioned` also comes from the message itself for its recipients.
 */
export function hasFlagSql(userId: number, flag: FlagName, alias = "messages"): Expression<SqlBool> {
  if (flag === "read") return sql<SqlBool>`not ${unreadForSql(userId, alias)}`;
  if (flag === "historical") {
    return sql<SqlBool>`(${storedFlagSql(userId, MESSAGE_FLAG.historical, alias)} or (not ${receivedBySql(userId, alias)}
      and not exists (select 1 from user_message_flags umf where umf.user_id = ${userId} and umf.message_id = ${col(alias, "id")})))`;
  }
  if (flag === "stream_wildcard_mentioned") {
    return sql<SqlBool>`(${storedFlagSql(userId, MESSAGE_FLAG.stream_wildcard_mentioned, alias)}
      or (${col(alias, "stream_wildcard_mention")} = 1 and ${receivedBySql(userId, alias)}))`;
  }
  return storedFlagSql(userId, MESSAGE_FLAG[flag], alias);
}

/** SQL: `is:mentioned`: mentioned, or wildcard-mentioned in either way. */
export function mentionedSql(userId: number, alias = "messages"): Expression<SqlBool> {
  return sql<SqlBool>`(${storedFlagSql(userId, MESSAGE_FLAG.mentioned | MESSAGE_FLAG.topic_wildcard_mentioned | MESSAGE_FLAG.stream_wildcard_mentioned, alias)}
    or (${col(alias, "stream_wildcard_mention")} = 1 and ${receivedBySql(userId, alias)}))`;
}

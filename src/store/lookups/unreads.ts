/**
 * Unread messages of one user, and the other per-user message summaries of the register
 * snapshot (starred ids, recent direct conversations, the newest received id). A message is
 * unread when the user received it, did not send it and has no flag row, or when their flag row
 * lacks `read`; channel messages count only while the user is subscribed (Zulip's invariant).
 * Messages without a row are looked for only above the user's unread watermark
 * (store/messages/unread-watermarks.ts); below it every unread message has its row.
 */
import { sql, type ExpressionBuilder } from "kysely";
import type { Db } from "../schema/types.ts";
import { receivedBySql } from "../messages/message-flags.ts";
import { directRecipientMembers, maxMessageId } from "../messages/messages.ts";
import { mutedStreamIds } from "../channels/subscriptions.ts";
import { MESSAGE_FLAG, RECIPIENT_TYPE } from "../schema/database.ts";
import type { MessageTable, UserMessageFlagTable } from "../schema/messages.ts";
import { userTopicRows, VISIBILITY_POLICY } from "../messages/user-topics.ts";
import { unreadWatermark } from "../messages/unread-watermarks.ts";
import { prepared, type Placeholder, type Placeholders } from "../engine/prepared.ts";

/** Zulip's MAX_UNREAD_MESSAGES: the snapshot holds at most this many (the newest) unread messages. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** Zulip's limit of direct messages scanned for recent_private_conversations. */
const RECENT_CONVERSATIONS_LIMIT = 1000;
/** Zulip's limit of starred message ids in the snapshot. */
const STARRED_LIMIT = 10_000;

/** One unread message with the fields its classification needs; `bits` are the effective flags. */
export type UnreadRow = { id: number; stream_id: number | null; topic: string; recipient_id: number; sender_id: number; bits: number };

/** Unread messages sorted into conversations (Zulip's RawUnreadMessagesResult). */
export type RawUnreads = {
  /** 1:1 and self conversations: message id → the other user (oneself for self messages). */
  pms: Map<number, number>;
  streams: Map<number, { stream_id: number; topic: string }>;
  /** Group conversations: message id → the members' ids, sorted and joined by commas. */
  huddles: Map<number, string>;
  /** Channel messages outside muted channels and topics. */
  unmuted: Set<number>;
  mentions: Set<number>;
};

const MENTION_BITS = MESSAGE_FLAG.mentioned;
const WILDCARD_BITS = MESSAGE_FLAG.stream_wildcard_mentioned | MESSAGE_FLAG.topic_wildcard_mentioned;

/** Effective bits of a row: a received channel message with a channel wildcard mention adds that bit. */
function withDerivedBits(flags: number, historical: boolean, streamWildcard: number): number {
  return streamWildcard === 1 && !historical ? flags | MESSAGE_FLAG.stream_wildcard_mentioned : flags;
}

/**
 * A default-unread row (no flag row) with its derived bits. Built field by field, as storedUnread's
 * rows are: this runs per unread message, and properties after a spread take V8's slow path.
 */
function unreadRow(r: Omit<UnreadRow, "bits"> & { stream_wildcard_mention: number }): UnreadRow {
  return { id: r.id, stream_id: r.stream_id, topic: r.topic, recipient_id: r.recipient_id, sender_id: r.sender_id, bits: withDerivedBits(0, false, r.stream_wildcard_mention) };
}

/**
 * Which unread messages to look at: by default those of subscribed channels and direct
 * messages; `streamId` (and `topic`, case-insensitive) narrow to one channel; `includeUnsubscribed`
 * also counts channels the user left (marking as read covers those too, as Zulip's rows do).
 */
type UnreadFilter = { streamId?: number; topic?: string; includeUnsubscribed?: boolean; limit: number };

/** Which ids the search for messages without a row covers: above `afterId`, up to `throughId`; newest first unless `oldestFirst`. */
type IdRange = { afterId: number; throughId?: number; oldestFirst?: boolean };

/** What both halves of defaultUnread ask of a message: in `range`, no flag row of the user's, not sent by them. */
function withoutRowIn(userId: number, range: IdRange) {
  return (eb: ExpressionBuilder<{ m: MessageTable; f: UserMessageFlagTable }, "m" | "f">) =>
    eb.and([
      eb("m.id", ">", range.afterId),
      ...(range.throughId === undefined ? [] : [eb("m.id", "<=", range.throughId)]),
      eb("f.user_id", "is", null),
      eb("m.sender_id", "<>", userId),
    ]);
}

/** Received messages without a flag row that the user did not send (unread by default), within `range`. */
async function defaultUnread(db: Db, realmId: number, userId: number, filter: UnreadFilter, range: IdRange): Promise<UnreadRow[]> {
  const order = range.oldestFirst ? "asc" : "desc";
  // Started now, read below: the direct messages' query runs beside it (a round trip less).
  const channelRows = db
    .selectFrom("subscription_periods as sp")
    .innerJoin("subscriptions as s", (j) => j.onRef("s.stream_id", "=", "sp.stream_id").onRef("s.user_id", "=", "sp.user_id"))
    .innerJoin("messages as m", (j) => j.onRef("m.stream_id", "=", "sp.stream_id").onRef("m.id", ">=", "sp.first_message_id"))
    .leftJoin("user_message_flags as f", (j) => j.onRef("f.message_id", "=", "m.id").onRef("f.user_id", "=", "sp.user_id"))
    .select(["m.id", "m.stream_id", "m.topic", "m.recipient_id", "m.sender_id", "m.stream_wildcard_mention"])
    .where("sp.realm_id", "=", realmId)
    .where("sp.user_id", "=", userId)
    .$if(!filter.includeUnsubscribed, (q) => q.where("s.active", "=", 1))
    .$if(filter.streamId !== undefined, (q) => q.where("sp.stream_id", "=", filter.streamId ?? 0))
    .$if(filter.topic !== undefined, (q) => q.where(sql<string>`lower(m.topic)`, "=", (filter.topic ?? "").toLowerCase()))
    .where((eb) => eb.or([eb("sp.last_message_id", "is", null), eb("m.id", "<=", eb.ref("sp.last_message_id"))]))
    .where(withoutRowIn(userId, range))
    .orderBy("m.id", order)
    .limit(filter.limit)
    .execute();
  if (filter.streamId !== undefined) return (await channelRows).map(unreadRow);
  const directRows = db
    .selectFrom("direct_group_members as g")
    .innerJoin("recipients as r", (j) => j.onRef("r.type_id", "=", "g.group_id").on("r.type", "=", RECIPIENT_TYPE.direct))
    .innerJoin("messages as m", "m.recipient_id", "r.id")
    .leftJoin("user_message_flags as f", (j) => j.onRef("f.message_id", "=", "m.id").onRef("f.user_id", "=", "g.user_id"))
    .select(["m.id", "m.stream_id", "m.topic", "m.recipient_id", "m.sender_id", "m.stream_wildcard_mention"])
    .where("r.realm_id", "=", realmId)
    .where("g.user_id", "=", userId)
    .where(withoutRowIn(userId, range))
    .orderBy("m.id", order)
    .limit(filter.limit)
    .execute();
  const [channel, direct] = await Promise.all([channelRows, directRows]);
  return [...channel, ...direct].map(unreadRow);
}

/**
 * Ids of received messages in (afterId, throughId] that are unread for lack of a flag row, in
 * any channel the user was subscribed to, oldest first, at most `limit` (settling's scan).
 */
export async function unreadIdsWithoutRows(db: Db, realmId: number, userId: number, afterId: number, throughId: number, limit: number): Promise<number[]> {
  const rows = await defaultUnread(db, realmId, userId, { includeUnsubscribed: true, limit }, { afterId, throughId, oldestFirst: true });
  return rows
    .map((r) => r.id)
    .sort((a, b) => a - b)
    .slice(0, limit);
}

/** The query of storedUnread: flag rows lacking `read`, newest first, with the messages' fields. */
function storedUnreadQuery(db: Db, realmId: number | Placeholder<number>, userId: number | Placeholder<number>, limit: number | Placeholder<number>, filter: Omit<UnreadFilter, "limit">) {
  return (
    db
      .selectFrom("user_message_flags as f")
      .innerJoin("messages as m", "m.id", "f.message_id")
      .leftJoin("subscriptions as s", (j) => j.onRef("s.stream_id", "=", "m.stream_id").onRef("s.user_id", "=", "f.user_id"))
      .select(["m.id", "m.stream_id", "m.topic", "m.recipient_id", "m.sender_id", "m.stream_wildcard_mention", "f.flags"])
      .where("f.user_id", "=", userId)
      .where("m.realm_id", "=", realmId)
      // Literal, as the partial index user_message_flags_unread writes it (SQLite matches it by its text).
      .where(sql<boolean>`(f.flags & ${sql.lit(MESSAGE_FLAG.read)}) = 0`)
      .$if(!filter.includeUnsubscribed, (q) => q.where((eb) => eb.or([eb("m.stream_id", "is", null), eb("s.active", "=", 1)])))
      // `+` keeps messages' channel and topic indexes out of it: they would walk the channel's (or
      // topic's) whole history; the user's unread rows (the partial index) bound the work instead.
      .$if(filter.streamId !== undefined, (q) => q.where(sql<number>`+m.stream_id`, "=", filter.streamId ?? 0))
      .$if(filter.topic !== undefined, (q) => q.where(sql<string>`lower(m.topic)`, "=", (filter.topic ?? "").toLowerCase()))
      .orderBy("m.id", "desc")
      // Bound as a parameter either way (Kysely writes a number into the SQL): one text for the named statement and its twin.
      .limit(sql<number>`${limit}`)
  );
}

type UnreadParams = { realmId: number; userId: number; limit: number };

// The register snapshot's form (subscribed channels and direct messages), run as a named statement.
const subscribedStoredUnreadQuery = prepared("subscribedStoredUnread", (db, param: Placeholders<UnreadParams>) =>
  storedUnreadQuery(db, param("realmId"), param("userId"), param("limit"), {}),
);

/** Whether `filter` is the register snapshot's: every subscribed channel and direct messages, nothing else. */
function isSnapshotFilter(filter: UnreadFilter): boolean {
  return filter.streamId === undefined && filter.topic === undefined && filter.includeUnsubscribed !== true;
}

/** Messages whose flag row lacks `read` (channel messages only while subscribed). */
async function storedUnread(db: Db, realmId: number, userId: number, filter: UnreadFilter): Promise<UnreadRow[]> {
  const rows = isSnapshotFilter(filter)
    ? await subscribedStoredUnreadQuery(db, { realmId, userId, limit: filter.limit })
    : await storedUnreadQuery(db, realmId, userId, filter.limit, filter).execute();
  return rows.map((r) => ({
    id: r.id,
    stream_id: r.stream_id,
    topic: r.topic,
    recipient_id: r.recipient_id,
    sender_id: r.sender_id,
    bits: withDerivedBits(r.flags, (r.flags & MESSAGE_FLAG.historical) !== 0, r.stream_wildcard_mention),
  }));
}

/**
 * The register snapshot's row-less unread messages above the watermark, newest first: one
 * statement for channels and direct messages, walking down from the newest message and checking
 * each against the user's periods and conversations. Above a settled watermark there are few
 * messages (unreadRows asks only when there are at most SNAPSHOT_WALK_LIMIT), so this costs little
 * to run, and as a named statement nothing to plan (defaultUnread's joins cost PostgreSQL more to
 * plan, about 0.5 ms each, than to run).
 */
const snapshotDefaultUnreadQuery = prepared("snapshotDefaultUnread", (db, param: Placeholders<UnreadParams & { afterId: number }>) =>
  db
    .selectFrom("messages as m")
    .select(["m.id", "m.stream_id", "m.topic", "m.recipient_id", "m.sender_id", "m.stream_wildcard_mention"])
    .where("m.realm_id", "=", param("realmId"))
    .where("m.id", ">", param("afterId"))
    .where("m.sender_id", "<>", param("userId"))
    .where(
      sql<boolean>`not exists (select 1 from user_message_flags f where f.message_id = m.id and f.user_id = ${param("userId")})
        and (exists (select 1 from subscription_periods sp join subscriptions s on s.user_id = sp.user_id and s.stream_id = sp.stream_id
                     where sp.user_id = ${param("userId")} and sp.stream_id = m.stream_id and sp.first_message_id <= m.id
                       and (sp.last_message_id is null or m.id <= sp.last_message_id) and s.active = 1)
          or exists (select 1 from recipients r join direct_group_members g on g.group_id = r.type_id
                     where r.id = m.recipient_id and r.type = ${sql.lit(RECIPIENT_TYPE.direct)} and g.user_id = ${param("userId")}))`,
    )
    .orderBy("m.id", "desc")
    .limit(sql<number>`${param("limit")}`),
);

/**
 * The most messages above the watermark that snapshotDefaultUnread walks through; past it (a
 * watermark far behind, as before a user's first settling) defaultUnread's plan, made for the
 * values, reads only the user's own channels.
 */
const SNAPSHOT_WALK_LIMIT = 5_000;

/** The user's newest unread messages under `filter`, ascending, at most `filter.limit`; `truncated` when the limit was reached. */
export async function unreadRows(db: Db, realmId: number, userId: number, filter: UnreadFilter): Promise<{ rows: UnreadRow[]; truncated: boolean }> {
  const snapshot = isSnapshotFilter(filter);
  // Only the snapshot's walk needs the newest id (marking as read, in batches, does not).
  const [afterId, newestId] = await Promise.all([unreadWatermark(db, userId), snapshot ? maxMessageId(db) : null]);
  const withoutRows =
    newestId !== null && newestId - afterId <= SNAPSHOT_WALK_LIMIT
      ? snapshotDefaultUnreadQuery(db, { realmId, userId, afterId, limit: filter.limit }).then((rows) => rows.map(unreadRow))
      : defaultUnread(db, realmId, userId, filter, { afterId });
  const [byDefault, stored] = await Promise.all([withoutRows, storedUnread(db, realmId, userId, filter)]);
  // A settling that commits between the two reads can show a message in both: once each.
  const byId = new Map([...byDefault, ...stored].map((r) => [r.id, r]));
  const all = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, filter.limit);
  return { rows: all.reverse(), truncated: all.length === filter.limit };
}

/** Whether a channel topic is muted for the user: a muted channel unless the topic is unmuted or followed, or a muted topic. */
type MuteCheck = (streamId: number, topic: string) => boolean;

/** The user's mute check, from their subscriptions and topic policies. */
async function muteChecker(db: Db, realmId: number, userId: number): Promise<MuteCheck> {
  const [streamIds, topicRows] = await Promise.all([mutedStreamIds(db, realmId, userId), userTopicRows(db, realmId, userId)]);
  const mutedStreams = new Set(streamIds);
  const policies = new Map(topicRows.map((r) => [`${r.stream_id}:${r.topic.toLowerCase()}`, r.visibility_policy]));
  return (streamId, topic) => {
    const policy = policies.get(`${streamId}:${topic.toLowerCase()}`) ?? VISIBILITY_POLICY.inherit;
    if (mutedStreams.has(streamId)) return policy !== VISIBILITY_POLICY.unmuted && policy !== VISIBILITY_POLICY.followed;
    return policy === VISIBILITY_POLICY.muted;
  };
}

/** Sorts unread rows into conversations and finds mentions (Zulip's extract_unread_data_from_um_rows). */
export async function classifyUnreads(db: Db, realmId: number, userId: number, rows: UnreadRow[]): Promise<RawUnreads> {
  const [isMuted, members] = await Promise.all([
    muteChecker(db, realmId, userId),
    directRecipientMembers(db, [...new Set(rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id))]),
  ]);
  const out: RawUnreads = { pms: new Map(), streams: new Map(), huddles: new Map(), unmuted: new Set(), mentions: new Set() };
  for (const row of rows) {
    const unmuted = row.stream_id !== null && !isMuted(row.stream_id, row.topic);
    if (row.stream_id !== null) {
      out.streams.set(row.id, { stream_id: row.stream_id, topic: row.topic });
      if (unmuted) out.unmuted.add(row.id);
    } else {
      const ids = members.get(row.recipient_id) ?? [];
      if (ids.length > 2) out.huddles.set(row.id, ids.join(","));
      else out.pms.set(row.id, ids.find((id) => id !== userId) ?? userId);
    }
    if ((row.bits & MENTION_BITS) !== 0) out.mentions.add(row.id);
    if ((row.bits & WILDCARD_BITS) !== 0 && (row.stream_id === null || unmuted)) out.mentions.add(row.id);
  }
  return out;
}

// Every register asks: a named statement. The partial index user_message_flags_starred serves it for
// any user, and each starred row's realm is one primary-key lookup: as a join, PostgreSQL chose to
// merge the index with the whole primary key, walking every message between the user's oldest and
// newest starred one.
const starredQuery = prepared("starredMessageIds", (db, param: Placeholders<{ realmId: number; userId: number }>) =>
  db
    .selectFrom("user_message_flags as f")
    .select("f.message_id")
    .where("f.user_id", "=", param("userId"))
    .where(sql<boolean>`(f.flags & ${sql.lit(MESSAGE_FLAG.starred)}) <> 0`)
    .where(sql<number>`(select m.realm_id from messages m where m.id = f.message_id)`, "=", param("realmId"))
    .orderBy("f.message_id")
    .limit(STARRED_LIMIT),
);

/** Ids of the messages the user starred, ascending (Zulip caps the list). */
export async function starredMessageIds(db: Db, realmId: number, userId: number): Promise<number[]> {
  return (await starredQuery(db, { realmId, userId })).map((r) => r.message_id);
}

/** The user's direct conversations among their newest direct messages: other members and newest id, newest first. */
export async function recentDirectConversations(db: Db, realmId: number, userId: number): Promise<Array<{ max_message_id: number; user_ids: number[] }>> {
  const rows = await db
    .selectFrom("direct_group_members as g")
    .innerJoin("recipients as r", (j) => j.onRef("r.type_id", "=", "g.group_id").on("r.type", "=", RECIPIENT_TYPE.direct))
    .innerJoin("messages as m", "m.recipient_id", "r.id")
    .select(["m.id", "m.recipient_id"])
    .where("r.realm_id", "=", realmId)
    .where("g.user_id", "=", userId)
    .orderBy("m.id", "desc")
    .limit(RECENT_CONVERSATIONS_LIMIT)
    .execute();
  const newest = new Map<number, number>();
  for (const row of rows) newest.set(row.recipient_id, Math.max(newest.get(row.recipient_id) ?? 0, row.id));
  const members = await directRecipientMembers(db, [...newest.keys()]);
  return [...newest]
    .map(([recipientId, maxId]) => ({ max_message_id: maxId, user_ids: (members.get(recipientId) ?? []).filter((id) => id !== userId) }))
    .sort((a, b) => b.max_message_id - a.max_message_id);
}

/** How many of the realm's newest messages maxReceivedMessageId looks through for the user's channel messages. */
const RECENT_WINDOW = 64;

/**
 * The newest id of each way a user receives messages: sent, by a subscription period among the
 * realm's RECENT_WINDOW newest messages (null when none is there), direct, flagged. Each is an
 * index lookup or a walk of a fixed length, so it runs as a named statement.
 */
const newestReceivedQuery = prepared("newestReceived", (db, param: Placeholders<{ realmId: number; userId: number }>) =>
  db.selectNoFrom([
    sql<number | null>`(select max(id) from messages where realm_id = ${param("realmId")} and sender_id = ${param("userId")})`.as("sent"),
    sql<number | null>`(select max(w.id) from (select id, stream_id from messages where realm_id = ${param("realmId")} order by id desc limit ${sql.lit(RECENT_WINDOW)}) w
      where exists (select 1 from subscription_periods sp where sp.user_id = ${param("userId")} and sp.stream_id = w.stream_id
        and sp.first_message_id <= w.id and (sp.last_message_id is null or w.id <= sp.last_message_id)))`.as("recent_channel"),
    sql<number | null>`(select max(m.id) from direct_group_members g join recipients r on r.type_id = g.group_id and r.type = ${sql.lit(RECIPIENT_TYPE.direct)}
      join messages m on m.recipient_id = r.id where r.realm_id = ${param("realmId")} and g.user_id = ${param("userId")})`.as("direct"),
    sql<number | null>`(select max(message_id) from user_message_flags where user_id = ${param("userId")})`.as("flagged"),
  ]),
);

/** The newest message of any of the user's subscription periods, one step back along messages(stream_id, id) per period. */
async function newestPeriodMessageId(db: Db, realmId: number, userId: number): Promise<number | null> {
  const row = await db
    .selectFrom("subscription_periods as sp")
    .select(
      sql<number | null>`max((select max(m.id) from messages m where m.stream_id = sp.stream_id and m.id >= sp.first_message_id
        and (sp.last_message_id is null or m.id <= sp.last_message_id)))`.as("max_id"),
    )
    .where("sp.realm_id", "=", realmId)
    .where("sp.user_id", "=", userId)
    .executeTakeFirst();
  return row?.max_id ?? null;
}

/**
 * The highest id among messages the user received (sent, covered by a period, direct, or flagged);
 * -1 if none. A user's channels almost always hold one of the realm's newest messages; only when
 * none of those is theirs are their periods asked one by one.
 */
export async function maxReceivedMessageId(db: Db, realmId: number, userId: number): Promise<number> {
  const [newest] = await newestReceivedQuery(db, { realmId, userId });
  const channel = newest.recent_channel ?? (await newestPeriodMessageId(db, realmId, userId));
  return Math.max(...[newest.sent, channel, newest.direct, newest.flagged].map((id) => Number(id ?? -1)));
}

/** Whether the user received (or holds a flag row for) any message in a channel topic, case-insensitive. */
export async function userHasTopicMessage(db: Db, realmId: number, userId: number, streamId: number, topic: string): Promise<boolean> {
  const row = await db
    .selectFrom("messages")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("stream_id", "=", streamId)
    .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
    .where((eb) => eb.or([receivedBySql(userId), eb.exists(eb.selectFrom("user_message_flags as uf").select("uf.message_id").whereRef("uf.message_id", "=", "messages.id").where("uf.user_id", "=", userId))]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

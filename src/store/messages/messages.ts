/**
 * Messages and their conversations: channel recipients, direct groups (every direct
 * conversation, 1:1 and self included, is one group, FL 327), message rows and send-time flag rows.
 */
import { createHash } from "node:crypto";
import { sql, type Updateable } from "kysely";
import type { Db, Engine } from "../schema/types.ts";
import { indexNewMessage, searchVectorOf } from "./search-index.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { receivedBySql } from "./message-flags.ts";
import { MESSAGE_COLUMNS, RECIPIENT_TYPE, type MessageRow, type MessageTable, type NewMessage } from "../schema/database.ts";
import { cachedRead } from "../engine/read-cache.ts";
import { collectChunks, eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";

/** A direct conversation: its group and recipient ids. */
type DirectConversation = { groupId: number; recipientId: number; memberIds: number[] };

/** Longest member list kept as the key itself (PostgreSQL refuses index entries past 2,704 bytes). */
const MAX_PLAIN_KEY_LENGTH = 1000;

/** A set of users: its ids, distinct and ascending, and its key. */
type MemberSet = { ids: number[]; key: string; plainKey: string };

/**
 * The key of a set of users: the sorted ids joined by commas, or for a long list (a group
 * conversation of hundreds of users) a hash of that, as Zulip's huddle_hash is, so the unique
 * index takes it on both engines.
 */
function memberSet(userIds: Iterable<number>): MemberSet {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  const plainKey = ids.join(",");
  const key = plainKey.length <= MAX_PLAIN_KEY_LENGTH ? plainKey : `sha256:${createHash("sha256").update(plainKey).digest("hex")}`;
  return { ids, key, plainKey };
}

/** The member key of a direct conversation of these users (what direct_groups.member_key holds). */
export function directGroupKey(userIds: Iterable<number>): string {
  return memberSet(userIds).key;
}

const streamRecipientQuery = prepared("streamRecipient", (db, param: Placeholders<{ realmId: number; streamId: number }>) =>
  db
    .selectFrom("recipients")
    .select("id")
    .where("realm_id", "=", param("realmId"))
    .where("type", "=", RECIPIENT_TYPE.stream)
    .where("type_id", "=", param("streamId")),
);

const findStreamRecipient = cachedRead(
  "stream recipient",
  ["recipients"],
  (realmId: number, streamId: number) => `${realmId}/${streamId}`,
  (row: { id: number } | undefined) => row && { ...row },
  async (db, realmId, streamId) => (await streamRecipientQuery(db, { realmId, streamId }))[0],
);

/** Writes a channel's recipient row, unless it has one. */
export async function insertStreamRecipient(db: Db, realmId: number, streamId: number): Promise<void> {
  await db
    .insertInto("recipients")
    .values({ realm_id: realmId, type: RECIPIENT_TYPE.stream, type_id: streamId })
    .onConflict((oc) => oc.columns(["type", "type_id"]).doNothing())
    .execute();
}

/**
 * The recipient row id of a channel. Channels get theirs when created (store/channels/streams.ts), so this
 * only reads; for a channel that lacks one (a row written by hand) it makes it, which only a
 * transaction can.
 */
export async function streamRecipientId(db: Db, realmId: number, streamId: number): Promise<number> {
  const find = () => findStreamRecipient(db, realmId, streamId);
  const found = await find();
  if (found) return found.id;
  await insertStreamRecipient(db, realmId, streamId);
  const made = await find();
  if (!made) throw new Error(`no recipient for stream ${streamId}`);
  return made.id;
}

/** The direct conversation of exactly these users, if it exists. */
export async function findDirectConversation(db: Db, realmId: number, userIds: Iterable<number>): Promise<DirectConversation | undefined> {
  return findMemberSet(db, realmId, memberSet(userIds));
}

async function findMemberSet(db: Db, realmId: number, members: MemberSet): Promise<DirectConversation | undefined> {
  // TODO/compatibility: remove the plain key once no SQLite store holds a long key written before
  // long keys were hashed (PostgreSQL never could).
  const keys = members.key === members.plainKey ? [members.key] : [members.key, members.plainKey];
  const row = await db
    .selectFrom("direct_groups")
    .innerJoin("recipients", (j) => j.onRef("recipients.type_id", "=", "direct_groups.id").on("recipients.type", "=", RECIPIENT_TYPE.direct))
    .select(["direct_groups.id as groupId", "recipients.id as recipientId"])
    .where("direct_groups.realm_id", "=", realmId)
    .where("direct_groups.member_key", "in", keys)
    .orderBy("direct_groups.id")
    .executeTakeFirst();
  return row ? { groupId: row.groupId, recipientId: row.recipientId, memberIds: members.ids } : undefined;
}

/** The direct conversation of exactly these users, made (group, members, recipient) on first use. */
export async function directConversation(db: Db, realmId: number, userIds: Iterable<number>): Promise<DirectConversation> {
  const members = memberSet(userIds);
  const existing = await findMemberSet(db, realmId, members);
  if (existing) return existing;
  // A concurrent first message to the same users inserts nothing here and finds theirs below.
  const inserted = await db
    .insertInto("direct_groups")
    .values({ realm_id: realmId, member_key: members.key })
    .onConflict((oc) => oc.columns(["realm_id", "member_key"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (inserted) {
    const rows = members.ids.map((user_id) => ({ group_id: inserted.id, user_id }));
    await eachChunk(rowChunks(rows), (chunk) => db.insertInto("direct_group_members").values(chunk).execute());
    await db.insertInto("recipients").values({ realm_id: realmId, type: RECIPIENT_TYPE.direct, type_id: inserted.id }).execute();
  }
  const made = await findMemberSet(db, realmId, members);
  if (!made) throw new Error("direct conversation was not created");
  return made;
}

/** Member ids of each given direct recipient (by recipient id). */
export async function directRecipientMembers(db: Db, recipientIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  // Each recipient's members come whole from one chunk, so each list is ascending.
  const rows = await collectChunks(idChunks(recipientIds), (chunk) =>
    db
      .selectFrom("recipients")
      .innerJoin("direct_group_members", "direct_group_members.group_id", "recipients.type_id")
      .select(["recipients.id", "direct_group_members.user_id"])
      .where("recipients.type", "=", RECIPIENT_TYPE.direct)
      .where("recipients.id", "in", chunk)
      .orderBy("direct_group_members.user_id")
      .execute(),
  );
  for (const row of rows) {
    const members = out.get(row.id);
    if (members) members.push(row.user_id);
    else out.set(row.id, [row.user_id]);
  }
  return out;
}

/** Recipient ids of the realm's direct conversations that hold both `userId` and `otherId`, of at least `minMembers` people. */
export async function sharedDirectRecipientIds(db: Db, realmId: number, userId: number, otherId: number, minMembers: number): Promise<number[]> {
  const rows = await db
    .selectFrom("recipients")
    .innerJoin("direct_group_members as mine", "mine.group_id", "recipients.type_id")
    .innerJoin("direct_group_members as theirs", "theirs.group_id", "recipients.type_id")
    .select("recipients.id")
    .where("recipients.realm_id", "=", realmId)
    .where("recipients.type", "=", RECIPIENT_TYPE.direct)
    .where("mine.user_id", "=", userId)
    .where("theirs.user_id", "=", otherId)
    .where(
      sql<number>`(select count(*) from direct_group_members all_members where all_members.group_id = recipients.type_id)`,
      ">=",
      minMembers,
    )
    .execute();
  return rows.map((r) => r.id);
}

/**
 * A new message's row (every column as given, and the new id), and what the insert could tell at
 * no cost (else undefined): whether its channel topic had messages before it (else ask
 * topicHasEarlierMessages), and the sender's visibility policy for the topic (null: no row; else
 * ask getUserTopic).
 */
export type InsertedMessage = { message: MessageRow; topicHadMessages: boolean | undefined; senderTopicPolicy: number | null | undefined };

/**
 * Inserts a message, its search-index entry and its send-time flag rows (only users whose flags
 * differ from the default). On PostgreSQL the entry is a column of the row, and the usual single
 * flag row (the sender's) is written by the same statement, which also tells whether the topic
 * had messages and the sender's policy for it (two round trips fewer per send for automatic topic
 * visibility).
 */
export async function insertMessage(db: Db, engine: Engine, row: Omit<MessageRow, "id">, flagsByUser: ReadonlyMap<number, number>): Promise<InsertedMessage> {
  const indexed = { topic: row.topic, renderedContent: row.rendered_content };
  let id: number;
  let topicHadMessages: boolean | undefined;
  let senderTopicPolicy: number | null | undefined;
  if (engine === "postgres" && flagsByUser.size === 1) {
    const [[flag_user_id, flags]] = flagsByUser;
    const [inserted] = await insertMessageWithFlagQuery(db, { ...row, search_tsv: searchVectorOf(indexed), flag_user_id, flags, lowered_topic: row.topic.toLowerCase() });
    id = inserted.id;
    topicHadMessages = Boolean(inserted.topic_had_messages);
    senderTopicPolicy = inserted.sender_topic_policy;
  } else {
    [{ id }] = engine === "postgres" ? await insertIndexedMessageQuery(db, { ...row, search_tsv: searchVectorOf(indexed) }) : await insertMessageQuery(db, row);
    await indexNewMessage(db, engine, { id, ...indexed });
    await insertFlagRows(db, id, flagsByUser);
  }
  // The id first: properties after a spread take V8's slow path (see actions/context.ts).
  return { message: { id, ...row }, topicHadMessages, senderTopicPolicy };
}

type MessageColumn = Exclude<keyof MessageRow, "id">;

// Every column but the id is set (the Record type makes the list complete), each from its parameter.
function newMessageValues(param: Placeholders<NewMessage>) {
  return {
    realm_id: param("realm_id"), sender_id: param("sender_id"), recipient_id: param("recipient_id"), stream_id: param("stream_id"),
    topic: param("topic"), content: param("content"), rendered_content: param("rendered_content"), date_sent: param("date_sent"),
    sending_client: param("sending_client"), last_edit_time: param("last_edit_time"), last_moved_time: param("last_moved_time"),
    edit_history: param("edit_history"), is_me_message: param("is_me_message"), has_link: param("has_link"), has_image: param("has_image"),
    has_attachment: param("has_attachment"), stream_wildcard_mention: param("stream_wildcard_mention"),
  } satisfies Record<MessageColumn, unknown>;
}

const insertMessageQuery = prepared("insertMessage", (db, param: Placeholders<NewMessage>) =>
  db.insertInto("messages").values(newMessageValues(param)).returning("id"),
);

// PostgreSQL: `search_tsv` (search-index.ts) is a column the schema type leaves out, as
// only this statement writes it.
const insertIndexedMessageQuery = prepared("insertIndexedMessage", (db, param: Placeholders<NewMessage & { search_tsv: string }>) => {
  const values = newMessageValues(param);
  Object.assign(values, { search_tsv: sql<string>`${param("search_tsv")}::tsvector` });
  return db.insertInto("messages").values(values).returning("id");
});

// PostgreSQL, the common send: the message with its search vector, and its one flag row. The
// statement's snapshot predates its own insert, so `topic_had_messages` sees only earlier messages
// (false for a direct message: its stream_id is null). Migration 0027 says why a function asks.
// `sender_topic_policy` is getUserTopic's answer, by the same unique index.
const insertMessageWithFlagQuery = prepared(
  "insertMessageWithFlag",
  (db, param: Placeholders<NewMessage & { search_tsv: string; flag_user_id: number; flags: number; lowered_topic: string }>) => {
    const values = newMessageValues(param);
    Object.assign(values, { search_tsv: sql<string>`${param("search_tsv")}::tsvector` });
    return db
      .with("inserted", (qb) => qb.insertInto("messages").values(values).returning("id"))
      .insertInto("user_message_flags")
      .columns(["user_id", "message_id", "flags"])
      .expression((eb) =>
        eb.selectFrom("inserted").select([sql<number>`${param("flag_user_id")}::integer`.as("user_id"), "inserted.id", sql<number>`${param("flags")}::integer`.as("flags")]),
      )
      .returning([
        "message_id as id",
        sql<boolean>`parley_topic_has_messages(${param("realm_id")}, ${param("stream_id")}, ${param("lowered_topic")})`.as("topic_had_messages"),
        sql<number | null>`(select visibility_policy from user_topics where user_id = ${param("sender_id")} and stream_id = ${param("stream_id")} and lower(topic) = ${param("lowered_topic")} and realm_id = ${param("realm_id")})`.as(
          "sender_topic_policy",
        ),
      ]);
  },
);

const insertFlagRowQuery = prepared("insertFlagRow", (db, param: Placeholders<{ userId: number; messageId: number; flags: number }>) =>
  db.insertInto("user_message_flags").values({ user_id: param("userId"), message_id: param("messageId"), flags: param("flags") }),
);

/** Writes send-time flag rows (only users whose flags differ from the default). */
export async function insertFlagRows(db: Db, messageId: number, flagsByUser: ReadonlyMap<number, number>): Promise<void> {
  if (flagsByUser.size === 0) return;
  if (flagsByUser.size === 1) {
    // The common case (the sender's row alone) runs precompiled.
    const [[userId, flags]] = flagsByUser;
    await insertFlagRowQuery(db, { userId, messageId, flags });
    return;
  }
  const rows = [...flagsByUser].map(([user_id, flags]) => ({ user_id, message_id: messageId, flags }));
  await eachChunk(rowChunks(rows), (values) => db.insertInto("user_message_flags").values(values).execute());
}

/** One message of a realm by id. */
export function getMessage(db: Db, realmId: number, messageId: number): Promise<MessageRow | undefined> {
  return db.selectFrom("messages").select(MESSAGE_COLUMNS).where("realm_id", "=", realmId).where("id", "=", messageId).executeTakeFirst();
}

/** Messages of a realm by ids, ascending. */
export async function getMessages(db: Db, realmId: number, messageIds: number[]): Promise<MessageRow[]> {
  return collectChunks(idChunks(messageIds), (chunk) => db.selectFrom("messages").select(MESSAGE_COLUMNS).where("realm_id", "=", realmId).where("id", "in", chunk).orderBy("id").execute());
}

/** The columns of a message an edit or a move rewrites. */
type MessageUpdate = Updateable<MessageTable>;

/** Writes the given columns of one message and returns the new row. */
export function updateMessage(db: Db, realmId: number, messageId: number, patch: MessageUpdate): Promise<MessageRow> {
  return db.updateTable("messages").set(patch).where("realm_id", "=", realmId).where("id", "=", messageId).returningAll().executeTakeFirstOrThrow();
}

/** Replaces a message's stored edit history (a JSON list, newest first). */
export async function setMessageEditHistory(db: Db, messageId: number, editHistory: string): Promise<void> {
  await db.updateTable("messages").set({ edit_history: editHistory }).where("id", "=", messageId).execute();
}

/** Deletes message rows of a realm by ids (callers remove their flag rows, reactions and submessages first). */
export async function deleteMessageRows(db: Db, realmId: number, messageIds: number[]): Promise<void> {
  await eachChunk(idChunks(messageIds), (chunk) => db.deleteFrom("messages").where("realm_id", "=", realmId).where("id", "in", chunk).execute());
}

/** The id of a channel's oldest message, if it has any. */
export async function firstStreamMessageId(db: Db, realmId: number, streamId: number): Promise<number | undefined> {
  const row = await db.selectFrom("messages").select("id").where("realm_id", "=", realmId).where("stream_id", "=", streamId).orderBy("id").limit(1).executeTakeFirst();
  return row?.id;
}

/** The messages of one channel topic, compared case-insensitively as Zulip's topics are. */
function channelTopicMessages(db: Db, realmId: number, streamId: number, topic: string) {
  return db.selectFrom("messages").select(MESSAGE_COLUMNS).where("realm_id", "=", realmId).where("stream_id", "=", streamId).where(sql<string>`lower(topic)`, "=", topic.toLowerCase());
}

/** Messages of a channel topic (case-insensitive) with ids from `fromId` on, oldest first. */
export function topicMessageRows(db: Db, realmId: number, streamId: number, topic: string, fromId: number): Promise<MessageRow[]> {
  return channelTopicMessages(db, realmId, streamId, topic).where("id", ">=", fromId).orderBy("id").execute();
}

/** The newest message id of a channel topic (case-insensitive), or null when it has none. */
export async function topicMaxMessageId(db: Db, realmId: number, streamId: number, topic: string): Promise<number | null> {
  const row = await db
    .selectFrom("messages")
    .select(sql<number>`max(id)`.as("max_id"))
    .where("realm_id", "=", realmId)
    .where("stream_id", "=", streamId)
    .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
    .executeTakeFirst();
  return row?.max_id !== null && row?.max_id !== undefined ? Number(row.max_id) : null;
}

/**
 * Each topic of a channel, spelled as stored, with its newest message id; with a `receiverId`,
 * only the messages that user received count.
 */
export async function streamTopicMaxIds(db: Db, realmId: number, streamId: number, receiverId: number | null): Promise<Array<{ topic: string; max_id: number }>> {
  let query = db.selectFrom("messages").select(["topic", sql<number>`max(id)`.as("max_id")]).where("realm_id", "=", realmId).where("stream_id", "=", streamId);
  if (receiverId !== null) query = query.where(receivedBySql(receiverId));
  const rows = await query.groupBy("topic").execute();
  return rows.map((r) => ({ topic: r.topic, max_id: Number(r.max_id) }));
}

// Asked by every register and subscription change: a named statement.
const newestMessageIdQuery = prepared("newestMessageId", (db) => db.selectFrom("messages").select(sql<number | null>`max(id)`.as("max_id")));

/** The highest message id in the store (0 when there are none); subscription periods start after it. */
export async function maxMessageId(db: Db): Promise<number> {
  const [row] = await newestMessageIdQuery(db, {});
  return Number(row?.max_id ?? 0);
}

// PostgreSQL asks migration 0027's function, whose plan suits every topic size.
const pgEarlierTopicMessageQuery = prepared("pgEarlierTopicMessage", (db, param: Placeholders<{ realmId: number; streamId: number; loweredTopic: string; beforeId: number }>) =>
  db.selectNoFrom(sql<boolean>`parley_topic_has_messages(${param("realmId")}, ${param("streamId")}, ${param("loweredTopic")}, ${param("beforeId")})`.as("found")),
);

const earlierTopicMessageQuery = prepared("earlierTopicMessage", (db, param: Placeholders<{ realmId: number; streamId: number; loweredTopic: string; beforeId: number }>) =>
  db
    .selectFrom("messages")
    .select("id")
    .where("realm_id", "=", param("realmId"))
    .where("stream_id", "=", param("streamId"))
    .where(sql<string>`lower(topic)`, "=", param("loweredTopic"))
    .where("id", "<", param("beforeId"))
    .orderBy("id", "desc")
    .limit(1),
);

/** Whether a channel topic (case-insensitive) holds a message older than `beforeId`; the newest
 * such one is looked for, whose index and table pages a busy topic keeps in cache. */
export async function topicHasEarlierMessages(db: Db, engine: Engine, realmId: number, streamId: number, topic: string, beforeId: number): Promise<boolean> {
  const values = { realmId, streamId, loweredTopic: topic.toLowerCase(), beforeId };
  if (engine === "postgres") return Boolean((await pgEarlierTopicMessageQuery(db, values))[0]?.found);
  return (await earlierTopicMessageQuery(db, values)).length > 0;
}

/** Distinct senders of a channel topic (case-insensitive), for topic wildcard mentions. */
export async function topicParticipantIds(db: Db, realmId: number, streamId: number, topic: string): Promise<number[]> {
  const rows = await db
    .selectFrom("messages")
    .select("sender_id")
    .distinct()
    .where("realm_id", "=", realmId)
    .where("stream_id", "=", streamId)
    .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
    .execute();
  return rows.map((r) => r.sender_id);
}

/** Whether any message exists in a direct conversation (Zulip's "conversation already started"). */
export async function conversationHasMessages(db: Db, realmId: number, recipientId: number): Promise<boolean> {
  const row = await db.selectFrom("messages").select("id").where("realm_id", "=", realmId).where("recipient_id", "=", recipientId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The newest message of a channel topic (case-insensitive), if any. */
export function latestTopicMessage(db: Db, realmId: number, streamId: number, topic: string): Promise<MessageRow | undefined> {
  return channelTopicMessages(db, realmId, streamId, topic).orderBy("id", "desc").limit(1).executeTakeFirst();
}

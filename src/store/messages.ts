/**
 * Messages and their conversations: channel recipients, direct groups (every direct
 * conversation, 1:1 and self included, is one group, FL 327), message rows and send-time flag rows.
 */
import { sql } from "kysely";
import type { Db } from "./types.ts";
import { prepared } from "./prepared.ts";
import { RECIPIENT_TYPE, type MessageRow, type NewMessage } from "./schema.ts";
import { cachedRead } from "./read-cache.ts";

/** A direct conversation: its group and recipient ids. */
export type DirectConversation = { groupId: number; recipientId: number; memberIds: number[] };

/** The key of a set of users: sorted ids joined by commas. */
export function directMemberKey(userIds: Iterable<number>): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(",");
}

const streamRecipientQuery = prepared((db, p: { realmId: number; streamId: number }) =>
  db.selectFrom("recipients").select("id").where("realm_id", "=", p.realmId).where("type", "=", RECIPIENT_TYPE.stream).where("type_id", "=", p.streamId),
);

const findStreamRecipient = cachedRead(
  "stream recipient",
  ["recipients"],
  (realmId: number, streamId: number) => `${realmId}/${streamId}`,
  (row: { id: number } | undefined) => row && { ...row },
  async (db, realmId, streamId) => (await streamRecipientQuery(db, { realmId, streamId }))[0],
);

/** The recipient row id of a channel, made on first use. */
export async function streamRecipientId(db: Db, realmId: number, streamId: number): Promise<number> {
  const find = () => findStreamRecipient(db, realmId, streamId);
  const found = await find();
  if (found) return found.id;
  await db
    .insertInto("recipients")
    .values({ realm_id: realmId, type: RECIPIENT_TYPE.stream, type_id: streamId })
    .onConflict((oc) => oc.columns(["type", "type_id"]).doNothing())
    .execute();
  const made = await find();
  if (!made) throw new Error(`no recipient for stream ${streamId}`);
  return made.id;
}

/** The direct conversation of exactly these users, if it exists. */
export async function findDirectConversation(db: Db, realmId: number, userIds: Iterable<number>): Promise<DirectConversation | undefined> {
  const key = directMemberKey(userIds);
  const row = await db
    .selectFrom("direct_groups")
    .innerJoin("recipients", (j) => j.onRef("recipients.type_id", "=", "direct_groups.id").on("recipients.type", "=", RECIPIENT_TYPE.direct))
    .select(["direct_groups.id as groupId", "recipients.id as recipientId"])
    .where("direct_groups.realm_id", "=", realmId)
    .where("direct_groups.member_key", "=", key)
    .executeTakeFirst();
  return row ? { ...row, memberIds: key.split(",").map(Number) } : undefined;
}

/** The direct conversation of exactly these users, made (group, members, recipient) on first use. */
export async function directConversation(db: Db, realmId: number, userIds: Iterable<number>): Promise<DirectConversation> {
  const existing = await findDirectConversation(db, realmId, userIds);
  if (existing) return existing;
  const key = directMemberKey(userIds);
  const inserted = await db
    .insertInto("direct_groups")
    .values({ realm_id: realmId, member_key: key })
    .onConflict((oc) => oc.columns(["realm_id", "member_key"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (inserted) {
    const members = key.split(",").map(Number);
    await db.insertInto("direct_group_members").values(members.map((user_id) => ({ group_id: inserted.id, user_id }))).execute();
    await db.insertInto("recipients").values({ realm_id: realmId, type: RECIPIENT_TYPE.direct, type_id: inserted.id }).execute();
  }
  const made = await findDirectConversation(db, realmId, userIds);
  if (!made) throw new Error("direct conversation was not created");
  return made;
}

/** Member ids of each given direct recipient (by recipient id). */
export async function directRecipientMembers(db: Db, recipientIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (recipientIds.length === 0) return out;
  const rows = await db
    .selectFrom("recipients")
    .innerJoin("direct_group_members", "direct_group_members.group_id", "recipients.type_id")
    .select(["recipients.id", "direct_group_members.user_id"])
    .where("recipients.type", "=", RECIPIENT_TYPE.direct)
    .where("recipients.id", "in", recipientIds)
    .orderBy("direct_group_members.user_id")
    .execute();
  for (const row of rows) out.set(row.id, [...(out.get(row.id) ?? []), row.user_id]);
  return out;
}

/** Inserts a message and returns its row: every column as given, and the new id. */
export async function insertMessage(db: Db, row: Omit<MessageRow, "id">): Promise<MessageRow> {
  const [inserted] = await insertMessageQuery(db, row);
  return { ...row, id: inserted.id };
}

type MessageColumn = Exclude<keyof MessageRow, "id">;

/** The columns a new message sets: every one but the id (the Record type makes the list complete). */
const NEW_MESSAGE_COLUMNS = Object.keys({
  realm_id: true, sender_id: true, recipient_id: true, stream_id: true, topic: true, content: true, rendered_content: true,
  date_sent: true, sending_client: true, last_edit_time: true, last_moved_time: true, edit_history: true, is_me_message: true,
  has_link: true, has_image: true, has_attachment: true, stream_wildcard_mention: true,
} satisfies Record<MessageColumn, true>) as MessageColumn[];

const insertMessageQuery = prepared((db, p: NewMessage) =>
  db
    .insertInto("messages")
    .values(Object.fromEntries(NEW_MESSAGE_COLUMNS.map((c) => [c, p[c]])) as NewMessage)
    .returning("id"),
);

const insertFlagRowQuery = prepared((db, p: { userId: number; messageId: number; flags: number }) =>
  db.insertInto("user_message_flags").values({ user_id: p.userId, message_id: p.messageId, flags: p.flags }),
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
  await db
    .insertInto("user_message_flags")
    .values([...flagsByUser].map(([user_id, flags]) => ({ user_id, message_id: messageId, flags })))
    .execute();
}

/** One message of a realm by id. */
export function getMessage(db: Db, realmId: number, messageId: number): Promise<MessageRow | undefined> {
  return db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", "=", messageId).executeTakeFirst();
}

/** Messages of a realm by ids, ascending. */
export async function getMessages(db: Db, realmId: number, messageIds: number[]): Promise<MessageRow[]> {
  if (messageIds.length === 0) return [];
  return db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", "in", messageIds).orderBy("id").execute();
}

/** The highest message id in the store (0 when there are none); subscription periods start after it. */
export async function maxMessageId(db: Db): Promise<number> {
  const row = await db.selectFrom("messages").select(sql<number | null>`max(id)`.as("max_id")).executeTakeFirst();
  return Number(row?.max_id ?? 0);
}

const earlierTopicMessageQuery = prepared((db, p: { realmId: number; streamId: number; loweredTopic: string; beforeId: number }) =>
  db
    .selectFrom("messages")
    .select("id")
    .where("realm_id", "=", p.realmId)
    .where("stream_id", "=", p.streamId)
    .where(sql<string>`lower(topic)`, "=", p.loweredTopic)
    .where("id", "<", p.beforeId)
    .orderBy("id", "desc")
    .limit(1),
);

/** Whether a channel topic (case-insensitive) holds a message older than `beforeId`; the newest
 * such one is looked for, whose index and table pages a busy topic keeps in cache. */
export async function topicHasEarlierMessages(db: Db, realmId: number, streamId: number, topic: string, beforeId: number): Promise<boolean> {
  return (await earlierTopicMessageQuery(db, { realmId, streamId, loweredTopic: topic.toLowerCase(), beforeId })).length > 0;
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

/**
 * Sending a user's batch of missed-message emails once it is due (Zulip's
 * handle_missedmessage_emails): in one transaction, the batch's rows are taken (the claim: of
 * two processes only one finds them), the messages read or deleted meanwhile dropped, the rest
 * grouped into one email per conversation (a channel topic, or a direct conversation), a
 * mentioned channel conversation given the few messages just before it for context, and the
 * emails queued in the outbox, least recently active conversation first.
 */
import { userSetting } from "../../model/user-settings.ts";
import { messagesWithFlags, receivedIds } from "../../store/messages/message-flags.ts";
import { takeMissedMessageBatch, topicMessagesBefore } from "../../store/messages/missed-message-emails.ts";
import type { MessageRow, RealmRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { getUser } from "../../store/users/users.ts";
import type { DoEnv } from "../context.ts";
import { doQueueEmail } from "../email/outbox.ts";
import { conversationEmail, realmNameInSubject, type Bucket } from "./conversation-email.ts";

/** Context before a mentioned conversation's first missed message: at most this many messages... */
const CONTEXT_MESSAGES = 10;
/** ...sent at most this long before it (Zulip's get_context_for_message). */
const CONTEXT_SECONDS = 15 * 60;

/** The flags that make a message one that mentions the user. */
const MENTION_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"];

/** Which conversation a message belongs to: a channel topic (any case), or a direct conversation. */
function conversationKey(m: MessageRow): string {
  return m.stream_id !== null ? `s${m.recipient_id}:${m.topic.toLowerCase()}` : `d${m.recipient_id}`;
}

/** A mentioned channel conversation's context: the messages just before its first missed one that the user received. */
async function contextBefore(tx: Db, realm: RealmRow, userId: number, first: MessageRow): Promise<MessageRow[]> {
  if (first.stream_id === null) return [];
  const before = await topicMessagesBefore(tx, realm.id, first.stream_id, first.topic, first.id, first.date_sent - CONTEXT_SECONDS, CONTEXT_MESSAGES);
  const received = await receivedIds(tx, userId, before);
  return before.filter((m) => received.has(m.id));
}

/**
 * Takes the user's batch and queues its emails; returns how many were queued. Nothing is sent
 * to a deactivated user or one who turned missed-message emails off meanwhile (their batch is
 * dropped all the same).
 */
export async function doSendMissedMessageEmails(tx: Db, env: Pick<DoEnv, "realm" | "config">, userId: number): Promise<number> {
  const { realm } = env;
  const rows = await takeMissedMessageBatch(tx, userId);
  if (rows.length === 0) return 0;
  const user = await getUser(tx, realm.id, userId);
  if (!user || user.is_active !== 1 || user.is_bot !== 0 || userSetting(user, "enable_offline_email_notifications") !== true) return 0;
  const rowOf = new Map(rows.map((r) => [r.message_id, r]));
  const { rows: messages, flags } = await messagesWithFlags(tx, realm.id, user.id, [...rowOf.keys()]);
  const buckets = new Map<string, Bucket>();
  for (const m of messages) {
    const row = rowOf.get(m.id);
    if (!row || flags.get(m.id)?.includes("read")) continue;
    const key = conversationKey(m);
    const bucket = buckets.get(key) ?? { messages: [], rows: [] };
    bucket.messages.push(m);
    bucket.rows.push(row);
    buckets.set(key, bucket);
  }
  for (const bucket of buckets.values()) {
    const first = bucket.messages.reduce((a, b) => (b.date_sent < a.date_sent || (b.date_sent === a.date_sent && b.id < a.id) ? b : a));
    if (MENTION_FLAGS.some((f) => flags.get(first.id)?.includes(f))) bucket.messages.push(...(await contextBefore(tx, realm, user.id, first)));
  }
  // Least recently active conversation first.
  const ordered = [...buckets.values()].sort((a, b) => Math.max(...a.messages.map((m) => m.id)) - Math.max(...b.messages.map((m) => m.id)));
  const reader = { user, realmNameInSubject: await realmNameInSubject(tx, user) };
  for (const bucket of ordered) await doQueueEmail(tx, env, await conversationEmail(tx, realm, env.config.externalUrl, reader, bucket));
  return ordered.length;
}

/**
 * Who may see a message, and who hears about changes to it (Zulip's access_message and
 * event_recipient_ids_for_action_on_messages). Missing and forbidden messages give the same
 * error, so a refusal never reveals that a message exists.
 *
 * "Received" follows the message model: the sender, a subscription period of the user's for the
 * message's channel covering its id, or membership of its direct group. A stored flag row of a
 * user who did not receive the message (starred as "historical") counts like Zulip's historical
 * UserMessage row.
 */
import type { AuthedCaller } from "./caller.ts";
import { InvalidMessageError } from "../errors.ts";
import type { Db } from "../store/schema/types.ts";
import { directRecipientMembers, getMessage } from "../store/messages/messages.ts";
import { flagRowUserIds, receivedIds, storedFlags } from "../store/messages/message-flags.ts";
import type { MessageRow, StreamRow, UserRow } from "../store/schema/database.ts";
import { getStreamById } from "../store/channels/streams.ts";
import { activeUsersByIds, getSubscription, periodsOverlapping, subscriberIds } from "../store/channels/subscriptions.ts";
import { isGuest } from "./check.ts";
import { hasContentAccess } from "./stream-access.ts";

/** A message the caller may see, its channel (null for direct messages), and whether they received it. */
type MessageAccess = { message: MessageRow; stream: StreamRow | null; received: boolean };

/** Whether a user received a message (or holds a flag row for it, as a historical reader). */
async function hasUserMessage(db: Db, user: UserRow, message: MessageRow): Promise<boolean> {
  if ((await receivedIds(db, user.id, [message])).has(message.id)) return true;
  return (await storedFlags(db, user.id, [message.id])).has(message.id);
}

/** Content access to a channel (Zulip's user_has_content_access). */
async function channelContentAccess(db: Db, user: UserRow, stream: StreamRow): Promise<boolean> {
  const sub = await getSubscription(db, stream.realm_id, user.id, stream.id);
  return hasContentAccess(db, user, stream, sub?.active === 1);
}

/**
 * Whether the user may see a channel message: public channels for non-guests; otherwise
 * content access to the channel, plus having received it when history is protected.
 */
export async function canAccessChannelMessage(db: Db, user: UserRow, message: MessageRow, stream: StreamRow): Promise<boolean> {
  if (stream.invite_only === 0 && !isGuest(user)) return true;
  if (stream.history_public_to_subscribers === 0) {
    return (await hasUserMessage(db, user, message)) && channelContentAccess(db, user, stream);
  }
  return channelContentAccess(db, user, stream);
}

/**
 * Fetches a message the caller may see; `forModify` also refuses messages in archived channels.
 * Runs on `db` (the transaction of the caller, if any).
 */
export async function accessMessage(ctx: AuthedCaller, db: Db, messageId: number, opts: { forModify?: boolean } = {}): Promise<MessageAccess> {
  const message = await getMessage(db, ctx.realm.id, messageId);
  if (!message) throw new InvalidMessageError();
  if (message.stream_id === null) {
    const received = (await receivedIds(db, ctx.actor.id, [message])).has(message.id);
    if (!received) throw new InvalidMessageError();
    return { message, stream: null, received };
  }
  const stream = await getStreamById(db, ctx.realm.id, message.stream_id);
  if (!stream || (opts.forModify && stream.is_archived === 1)) throw new InvalidMessageError();
  if (!(await canAccessChannelMessage(db, ctx.actor, message, stream))) throw new InvalidMessageError();
  const received = (await receivedIds(db, ctx.actor.id, [message])).has(message.id);
  return { message, stream, received };
}

/** The message if the caller may see it, else null (for lookups such as the `with` operator). */
export async function readableMessage(ctx: AuthedCaller, messageId: number): Promise<MessageRow | null> {
  try {
    return (await accessMessage(ctx, ctx.db, messageId)).message;
  } catch (error) {
    if (error instanceof InvalidMessageError) return null;
    throw error;
  }
}

/** Users who received any of the messages of one conversation (senders included). */
export async function receiverIds(db: Db, messages: readonly MessageRow[]): Promise<Set<number>> {
  const out = new Set<number>();
  if (messages.length === 0) return out;
  for (const m of messages) out.add(m.sender_id);
  const sample = messages[0];
  if (sample.stream_id === null) {
    const members = await directRecipientMembers(db, [sample.recipient_id]);
    for (const id of members.get(sample.recipient_id) ?? []) out.add(id);
    return out;
  }
  const ids = messages.map((m) => m.id);
  const periods = await periodsOverlapping(db, sample.stream_id, ids);
  for (const p of periods) {
    if (ids.some((id) => p.first_message_id <= id && (p.last_message_id === null || id <= p.last_message_id))) out.add(p.user_id);
  }
  return out;
}

/**
 * Who gets events about an action on messages of one conversation (delete, edit, reactions):
 * a direct message's participants; in a channel, its subscribers, plus (public channels) the
 * non-guests who received the messages or hold rows for them, or (protected history) only
 * subscribers who received them.
 */
export async function messageEventUserIds(db: Db, realmId: number, messages: readonly MessageRow[], stream: StreamRow | null): Promise<Set<number>> {
  if (messages.length === 0) return new Set();
  const ids = messages.map((m) => m.id);
  const holders = new Set([...(await receiverIds(db, messages)), ...(await flagRowUserIds(db, ids))]);
  if (stream === null) return new Set((await activeUsersByIds(db, realmId, [...(await receiverIds(db, messages))])).map((u) => u.id));
  const subscribers = new Set(await subscriberIds(db, realmId, stream.id));
  if (stream.history_public_to_subscribers === 0) return new Set([...holders].filter((id) => subscribers.has(id)));
  if (stream.invite_only === 1) return subscribers;
  const holdersWithAccess = (await activeUsersByIds(db, realmId, [...holders])).filter((u) => !isGuest(u)).map((u) => u.id);
  return new Set([...subscribers, ...holdersWithAccess]);
}

/**
 * Sending a message, in Zulip's two steps (zerver/actions/message_send.py): `checkMessage` resolves
 * the addressee, checks posting and mention permissions, normalises content and topic and renders,
 * writing nothing, into a `SendRequest`; `doSendMessage` writes it inside the caller's transaction
 * (the message, its attachments, the flag rows that differ from the default, the search entry,
 * first_message_id, automatic topic visibility) and emits the `message` event, which reaches each
 * recipient's queues with that user's flags after commit. Internal senders call both inside their
 * own transaction; a caller's send (POST /messages, incoming webhooks) is `sendMessage`
 * (send-message.ts), which checks a channel message before its transaction.
 */
import { nowSeconds } from "../../clock.ts";
import { messageEventTemplate, TEMPLATE_PRESENT_OPTIONS, userFlagSets, type MessageEventTemplate } from "../../events/kinds/messages.ts";
import { JsonableError } from "../../errors.ts";
import { renderMessage, type RenderResult } from "../../markdown/render.ts";
import type { Linkifier } from "../../markdown/types.ts";
import { effectiveMemberIds } from "../../store/groups/group-membership.ts";
import { hasRealmPermission } from "../../permissions/check.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { EMAIL_VISIBILITY, emailDomain } from "../../model/emails.ts";
import { messageLookups, newChannelMessageLookups, presentMessage, unknownSenderFields } from "../../present/messages.ts";
import { unknownUserAvatarUrl } from "../../present/users.ts";
import { idsWithoutAccessTo } from "../../permissions/user-access.ts";
import { messageLookupRows } from "../../store/lookups/message-lookups.ts";
import type { Db } from "../../store/schema/types.ts";
import { defaultFlagBits, effectiveFlagBits, flagNames } from "../../store/messages/message-flags.ts";
import { directConversation, streamRecipientId, topicParticipantIds, type InsertedMessage } from "../../store/messages/messages.ts";
import { insertMessages, type MessageInsert } from "../../store/messages/message-inserts.ts";
import { MESSAGE_FLAG, type MessageRow, type StreamRow, type UserRow } from "../../store/schema/database.ts";
import { lowerFirstMessageId } from "../../store/channels/streams.ts";
import { mutersOf } from "../../store/users/muted-users.ts";
import { subscriberIds } from "../../store/channels/subscriptions.ts";
import { claimAttachments } from "../attachments/claim.ts";
import { alertedReceiverIds } from "../users/alert-words.ts";
import type { AuthedCtx, DoEnv } from "../context.ts";
import { doQueueOutgoingWebhooks } from "./outgoing-webhook-trigger.ts";
import { doQueueMessagePush } from "../push/message-notify.ts";
import { doQueueMessageEmails } from "../email-notifications/queue.ts";
import { loadRenderContext } from "./render-context.ts";
import { defaultReadBySender, normalizeContent, normalizeTopic } from "./send-content.ts";
import { checkCanPost, checkCanSendDirect, parseDirectRecipients, parseStreamIndicator, resolveDirectUsers, resolveStream } from "./send-recipients.ts";
import { doApplyTopicVisibility, topicPolicyUsers } from "./send-visibility.ts";

/**
 * Who a message goes to (Zulip's Addressee): POST /messages gives the raw `to` (a channel name or
 * id, or a list of user ids or emails), which checkMessage resolves; internal senders give rows.
 */
export type Addressee = { type: "stream"; to: string | StreamRow; topic?: string } | { type: "private"; to: string | UserRow[] };

/** What checkMessage checks; the sender and the client are the context's actor and client. */
export type SendMessageInput = {
  addressee: Addressee;
  content: string;
  queueId?: string;
  localId?: string;
  readBySender?: boolean;
  /** Posted by a system bot (Zulip's internal sends): no posting permission checks. */
  systemBot?: boolean;
  /** Receivers who get it already read (Zulip's mark_as_read_for_acting_user). */
  readBy?: number[];
  /** When given, every other receiver gets it already read (Zulip's limit_unread_user_ids). */
  unreadOnlyFor?: number[];
  /** Receivers who get it starred (the Welcome Bot's messages to a new user). */
  starredFor?: number[];
  /** False: no phone notification (Zulip's disable_external_notifications); true when absent. */
  externalNotifications?: boolean;
};

/** A checked and rendered message, ready to be written (Zulip's SendMessageRequest). */
export type SendRequest = {
  sender: UserRow;
  client: string;
  /** The normalised Markdown. */
  content: string;
  rendered: RenderResult;
  linkifiers: readonly Linkifier[];
  recipientId: number;
  /** The channel, or null for a direct message. */
  stream: StreamRow | null;
  /** The stored topic ("" for direct messages). */
  topic: string;
  receiverIds: number[];
  /** A direct message's addressees as checked (the sender's row among them only if named); empty for a channel. */
  directUsers: readonly UserRow[];
  /** Receivers mentioned directly or through a group. */
  mentionedIds: ReadonlySet<number>;
  /** Flag bits of the receivers whose flags differ from the default (see storedSendFlags). */
  storedFlags: ReadonlyMap<number, number>;
  queueId: string | null;
  localId: string | null;
  /** Whether receivers may get phone notifications and missed-message emails of it (doQueueMessagePush, doQueueMessageEmails). */
  notifyExternally: boolean;
};

/** What sending returns: the id and, when sending changed the sender's topic policy, the new one. */
export type SendMessageResult = { id: number; automatic_new_visibility_policy?: number };

/** Where the message goes, once addressing is checked. */
type Target = Pick<SendRequest, "recipientId" | "stream" | "topic" | "receiverIds" | "directUsers">;

async function channelTarget(ctx: AuthedCtx, db: Db, addressee: Extract<Addressee, { type: "stream" }>, systemBot: boolean): Promise<Target> {
  const stream = typeof addressee.to === "string" ? await resolveStream(ctx, db, parseStreamIndicator(addressee.to)) : addressee.to;
  const topicRaw = addressee.topic;
  if (topicRaw === undefined) throw new JsonableError("Missing topic");
  if (!systemBot) await checkCanPost(ctx, db, stream);
  const topic = normalizeTopic(topicRaw, ctx.realm);
  const subscribers = await subscriberIds(db, ctx.realm.id, stream.id);
  const receiverIds = subscribers.includes(ctx.actor.id) ? subscribers : [ctx.actor.id, ...subscribers];
  return { recipientId: await streamRecipientId(db, ctx.realm.id, stream.id), stream, topic, receiverIds, directUsers: [] };
}

async function directTarget(ctx: AuthedCtx, db: Db, addressee: Extract<Addressee, { type: "private" }>): Promise<Target> {
  const users = typeof addressee.to === "string" ? await resolveDirectUsers(ctx, db, parseDirectRecipients(addressee.to)) : addressee.to;
  const memberIds = [...new Set([...users.map((u) => u.id), ctx.actor.id])];
  await checkCanSendDirect(ctx, db, users, memberIds);
  const conversation = await directConversation(db, ctx.realm.id, memberIds);
  return { recipientId: conversation.recipientId, stream: null, topic: "", receiverIds: conversation.memberIds, directUsers: users };
}

/** Zulip's wildcard and group-mention permission checks, in its order. */
async function checkMentions(ctx: AuthedCtx, db: Db, target: Target, rendered: RenderResult, participants: number[]): Promise<void> {
  const threshold = realmSettings(ctx.realm).wildcard_mention_threshold;
  const mayMentionMany = () => hasRealmPermission(db, ctx.realm, ctx.actor, "can_mention_many_users_group");
  if (target.stream && rendered.wildcard.channel && target.receiverIds.length > threshold && !(await mayMentionMany())) {
    throw new JsonableError("You do not have permission to use channel wildcard mentions in this channel.", { code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED" });
  }
  if (target.stream && rendered.wildcard.topic && participants.length > threshold && !(await mayMentionMany())) {
    throw new JsonableError("You do not have permission to use topic wildcard mentions in this topic.", { code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED" });
  }
  const forbidden = rendered.forbiddenGroupMentions[0];
  if (forbidden) throw new JsonableError(`You are not allowed to mention user group '${forbidden.name}'.`);
}

/** Users mentioned directly or through a mentioned group, among the receivers. */
async function mentionedIds(db: Db, rendered: RenderResult, receivers: Set<number>): Promise<Set<number>> {
  const ids = new Set(rendered.mentionedUserIds);
  for (const groupId of rendered.mentionedGroupIds) for (const id of await effectiveMemberIds(db, groupId)) ids.add(id);
  return new Set([...ids].filter((id) => receivers.has(id)));
}

/** Which receivers get the message already read; users who muted the sender do (Zulip's muted_sender_user_ids). */
function readBy(senderId: number, readBySender: boolean, input: SendMessageInput, muters: readonly number[]): (id: number) => boolean {
  const read = new Set(input.readBy);
  for (const id of muters) read.add(id);
  if (readBySender) read.add(senderId);
  const unread = input.unreadOnlyFor === undefined ? null : new Set(input.unreadOnlyFor);
  return (id) => read.has(id) || (unread !== null && !unread.has(id));
}

/** Receivers whose flags a send may set beyond the default. */
type SendMarks = { mentioned: ReadonlySet<number>; topicWildcard: ReadonlySet<number>; alerted: ReadonlySet<number>; muters: readonly number[]; starred: readonly number[] };

/**
 * Flag bits of the receivers whose flags at send time differ from the default (the sender's is
 * read, everyone else's none); the channel-wide wildcard is derived at read time. Only the
 * sender, mentioned or alerted users, those who muted the sender and those named by `readBy` or
 * `starredFor` can differ, unless `unreadOnlyFor` makes every other receiver's read.
 */
function storedSendFlags(senderId: number, receivers: ReadonlySet<number>, isRead: (id: number) => boolean, input: SendMessageInput, marks: SendMarks): Map<number, number> {
  const { mentioned, topicWildcard, alerted } = marks;
  const starred = new Set(marks.starred);
  const candidates = input.unreadOnlyFor === undefined ? new Set([senderId, ...(input.readBy ?? []), ...marks.muters, ...mentioned, ...topicWildcard, ...alerted, ...starred]) : receivers;
  const out = new Map<number, number>();
  for (const id of candidates) {
    if (!receivers.has(id)) continue;
    let bits = isRead(id) ? MESSAGE_FLAG.read : 0;
    if (mentioned.has(id)) bits |= MESSAGE_FLAG.mentioned;
    if (topicWildcard.has(id)) bits |= MESSAGE_FLAG.topic_wildcard_mentioned;
    if (alerted.has(id)) bits |= MESSAGE_FLAG.has_alert_word;
    if (starred.has(id)) bits |= MESSAGE_FLAG.starred;
    if (bits !== defaultFlagBits(id, { sender_id: senderId })) out.set(id, bits);
  }
  return out;
}

/**
 * Zulip's check_message: checks a message from `ctx.actor` (addressee, posting permission, content
 * and topic, mention permissions) and renders it. Reads only; throws the first refusal.
 */
export async function checkMessage(ctx: AuthedCtx, db: Db, input: SendMessageInput): Promise<SendRequest> {
  if (input.queueId !== undefined && input.localId === undefined) throw new JsonableError("Missing 'local_id' argument", { code: "REQUEST_VARIABLE_MISSING", data: { var_name: "local_id" } });
  const content = normalizeContent(input.content, ctx.realm);
  const readBySender = input.readBySender ?? defaultReadBySender(ctx.client);
  const { addressee } = input;
  const target = addressee.type === "stream" ? await channelTarget(ctx, db, addressee, input.systemBot === true) : await directTarget(ctx, db, addressee);
  const renderContext = await loadRenderContext(ctx, db, ctx.actor, content);
  const rendered = renderMessage(content, renderContext);
  const participants = target.stream && rendered.wildcard.topic ? [...new Set([...(await topicParticipantIds(db, ctx.realm.id, target.stream.id, target.topic)), ctx.actor.id])] : [];
  await checkMentions(ctx, db, target, rendered, participants);
  const receivers = new Set(target.receiverIds);
  const mentioned = await mentionedIds(db, rendered, receivers);
  const topicWildcard = new Set(participants.filter((id) => receivers.has(id)));
  const [alerted, muters] = await Promise.all([alertedReceiverIds(db, ctx.realm.id, content, receivers, ctx.actor.id), mutersOf(db, ctx.realm.id, ctx.actor.id)]);
  const storedFlags = storedSendFlags(ctx.actor.id, receivers, readBy(ctx.actor.id, readBySender, input, muters), input, { mentioned, topicWildcard, alerted, muters, starred: input.starredFor ?? [] });
  // Field by field: properties after a spread take V8's slow path (see actions/context.ts).
  return {
    recipientId: target.recipientId,
    stream: target.stream,
    topic: target.topic,
    receiverIds: target.receiverIds,
    directUsers: target.directUsers,
    sender: ctx.actor,
    client: ctx.client,
    content,
    rendered,
    linkifiers: renderContext.linkifiers ?? [],
    mentionedIds: mentioned,
    storedFlags,
    queueId: input.queueId ?? null,
    localId: input.localId ?? null,
    notifyExternally: input.externalNotifications !== false,
  };
}

/** The message event: one template with each receiver's flags inside. */
async function messageEvent(ctx: Pick<DoEnv, "realm" | "config">, db: Db, message: MessageRow, request: SendRequest): Promise<MessageEventTemplate> {
  const { sender, stream } = request;
  const host = emailDomain(ctx.config.externalUrl);
  const lookups = stream === null ? messageLookups(ctx.realm, host, await messageLookupRows(db, ctx.realm.id, [message])) : newChannelMessageLookups(ctx.realm, host, sender, stream, request.linkifiers);
  const presented = presentMessage(message, sender, TEMPLATE_PRESENT_OPTIONS, lookups);
  const userFlags = userFlagSets(request.receiverIds.map((id) => [id, flagNames(effectiveFlagBits(id, message, { received: true, stored: request.storedFlags.get(id) }))]));
  const template = messageEventTemplate(presented, {
    raw_content: message.content,
    user_flags: userFlags,
    gravatar_computable: sender.email_address_visibility === EMAIL_VISIBILITY.everyone && sender.avatar_source === "G",
    empty_topic_display_name: realmSettings(ctx.realm).realm_empty_topic_display_name,
    sender_queue_id: request.queueId,
    local_id: request.localId,
  });
  // Receivers of a direct message share its conversation with the sender: only a channel's can lack access.
  const hiddenFrom = stream === null ? [] : [...(await idsWithoutAccessTo(db, ctx.realm, sender, request.receiverIds))];
  if (hiddenFrom.length > 0) template.variants.sender_hidden_from = { user_ids: hiddenFrom, ...unknownSenderFields(sender.id, host, unknownUserAvatarUrl(ctx.config.externalUrl)) };
  return template;
}

/** The message row a checked request writes, its send-time flags, and whose topic policy its send may set. */
export function sentMessageInsert(ctx: Pick<DoEnv, "realm" | "clock">, request: SendRequest): MessageInsert {
  const { rendered } = request;
  const row: MessageInsert["row"] = {
    realm_id: ctx.realm.id,
    sender_id: request.sender.id,
    recipient_id: request.recipientId,
    stream_id: request.stream?.id ?? null,
    topic: request.topic,
    content: request.content,
    rendered_content: rendered.html,
    date_sent: nowSeconds(ctx.clock),
    sending_client: request.client,
    last_edit_time: null,
    last_moved_time: null,
    edit_history: null,
    is_me_message: rendered.isMeMessage ? 1 : 0,
    has_link: rendered.hasLink ? 1 : 0,
    has_image: rendered.hasImage ? 1 : 0,
    has_attachment: rendered.hasAttachment ? 1 : 0,
    stream_wildcard_mention: rendered.wildcard.channel ? 1 : 0,
  };
  return { row, flags: request.storedFlags, topicPolicyUsers: topicPolicyUsers(request) };
}

/** What the send primitives read of their environment. */
type SendEnv = Pick<DoEnv, "realm" | "clock" | "engine" | "config" | "emit">;

/**
 * Zulip's do_send_messages for one checked message, inside the caller's transaction: inserts the
 * message, then writes and emits the rest (doSendInsertedMessage).
 */
export async function doSendMessage(tx: Db, env: SendEnv, request: SendRequest): Promise<SendMessageResult> {
  const [inserted] = await insertMessages(tx, env.engine, [{ reserve: env.emit.reserveMessageId, ...sentMessageInsert(env, request) }]);
  return doSendInsertedMessage(tx, env, request, inserted);
}

/**
 * A send once its message row is written (by doSendMessage, or by the store as its transaction's
 * leading insert: sendMessage's channel messages, store/messages/message-inserts.ts): its attachments,
 * outgoing-webhook and push jobs, the channel's first_message_id, automatic topic visibility,
 * and its `message` event (after any user_topic events of that visibility, as Zulip orders them);
 * queues that asked for all public channels get public channels' messages too.
 */
export async function doSendInsertedMessage(tx: Db, env: SendEnv, request: SendRequest, inserted: InsertedMessage): Promise<SendMessageResult> {
  const { sender, stream } = request;
  const { message } = inserted;
  await claimAttachments(tx, env.realm.id, sender.id, message.id, request.rendered.linkedUploadPaths, env.emit);
  await doQueueOutgoingWebhooks(tx, env, message.id, request);
  if ((env.config.pushRelay !== null || env.config.smtp !== null) && request.notifyExternally) {
    // Who its phones and missed-message emails may notify, and why, as of now: before this
    // send's own automatic follows.
    const sent = { message, flagsOf: (id: number) => request.storedFlags.get(id) ?? defaultFlagBits(id, message) };
    await doQueueMessagePush(tx, env, sent, request.receiverIds, env.clock.nowMs());
    await doQueueMessageEmails(tx, env, sent, request.receiverIds);
  }
  const event = await messageEvent(env, tx, message, request);
  const result: SendMessageResult = { id: message.id };
  if (stream) {
    // The row may be older than a concurrent send's commit: the write itself keeps the oldest id.
    if (stream.first_message_id === null || stream.first_message_id > message.id) await lowerFirstMessageId(tx, env.realm.id, stream.id, message.id);
    const policy = await doApplyTopicVisibility(tx, env, { sender, stream, mentionedIds: request.mentionedIds }, inserted);
    if (policy !== undefined) result.automatic_new_visibility_policy = policy;
  }
  env.emit(event, request.receiverIds, { allPublicStreamsQueues: stream !== null && stream.invite_only === 0 });
  return result;
}

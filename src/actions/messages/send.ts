/**
 * POST /messages: checks the addressing, renders, stores the message with only the flag rows that
 * differ from the default, indexes it for search, applies automatic topic visibility and, after
 * commit, sends each recipient's queues a `message` event with that user's flags.
 */
import { nowSeconds } from "../../clock.ts";
import { messageEventTemplate, TEMPLATE_PRESENT_OPTIONS } from "../../events/kinds/messages.ts";
import { JsonableError } from "../../errors.ts";
import { renderMessage, type RenderResult } from "../../markdown/render.ts";
import type { Linkifier } from "../../markdown/types.ts";
import { effectiveMemberIds } from "../../permissions/group-setting.ts";
import { hasRealmPermission } from "../../permissions/check.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { EMAIL_VISIBILITY, emailDomain } from "../../store/emails.ts";
import { loadMessageLookups, newChannelMessageLookups, presentMessage } from "../../present/messages.ts";
import type { Db } from "../../store/types.ts";
import { indexNewMessage } from "../../store/dialect/search-index.ts";
import { defaultFlagBits, effectiveFlagBits, flagNames } from "../../store/message-flags.ts";
import { directConversation, insertFlagRows, insertMessage, streamRecipientId, topicParticipantIds } from "../../store/messages.ts";
import { MESSAGE_FLAG, type MessageRow, type StreamRow } from "../../store/schema.ts";
import { updateStream } from "../../store/streams.ts";
import { subscriberIds } from "../../store/subscriptions.ts";
import { usersByIds } from "../../store/users.ts";
import type { Delivery } from "../../events/types.ts";
import { claimAttachments } from "../attachments/claim.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { loadRenderContext } from "./render-context.ts";
import { defaultReadBySender, normalizeContent, normalizeTopic } from "./send-content.ts";
import { checkCanPost, checkCanSendDirect, parseDirectRecipients, parseStreamIndicator, resolveDirectUsers, resolveStream } from "./send-recipients.ts";
import { applySenderVisibility, followForMentions } from "./send-visibility.ts";

/** POST /messages input, after parameter parsing. */
export type SendMessageInput = {
  type: "stream" | "private";
  /** The raw `to` value: a channel name or id, or a list of user ids or emails. */
  to: string;
  topic?: string;
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
};

export type SendMessageResult = { id: number; automatic_new_visibility_policy?: number };

/** Where the message goes, once addressing is checked. */
type Target = { recipientId: number; stream: StreamRow | null; topic: string; receiverIds: number[] };

async function channelTarget(ctx: AuthedCtx, tx: Db, input: SendMessageInput): Promise<Target> {
  const stream = await resolveStream(ctx, tx, parseStreamIndicator(input.to));
  const topicRaw = input.topic;
  if (topicRaw === undefined) throw new JsonableError("Missing topic");
  if (!input.systemBot) await checkCanPost(ctx, tx, stream);
  const topic = normalizeTopic(topicRaw, ctx.realm);
  const subscribers = await subscriberIds(tx, ctx.realm.id, stream.id);
  const receiverIds = [...new Set([ctx.actor.id, ...subscribers])];
  return { recipientId: await streamRecipientId(tx, ctx.realm.id, stream.id), stream, topic, receiverIds };
}

async function directTarget(ctx: AuthedCtx, tx: Db, input: SendMessageInput): Promise<Target> {
  const users = await resolveDirectUsers(ctx, tx, parseDirectRecipients(input.to));
  const memberIds = [...new Set([...users.map((u) => u.id), ctx.actor.id])];
  await checkCanSendDirect(ctx, tx, users, memberIds);
  const conversation = await directConversation(tx, ctx.realm.id, memberIds);
  return { recipientId: conversation.recipientId, stream: null, topic: "", receiverIds: conversation.memberIds };
}

/** Zulip's wildcard and group-mention permission checks, in its order. */
async function checkMentions(ctx: AuthedCtx, tx: Db, target: Target, rendered: RenderResult, participants: number[]): Promise<void> {
  const threshold = realmSettings(ctx.realm).wildcard_mention_threshold;
  const mayMentionMany = () => hasRealmPermission(tx, ctx.realm, ctx.actor, "can_mention_many_users_group");
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
async function mentionedIds(tx: Db, rendered: RenderResult, receivers: Set<number>): Promise<Set<number>> {
  const ids = new Set(rendered.mentionedUserIds);
  for (const groupId of rendered.mentionedGroupIds) for (const id of await effectiveMemberIds(tx, groupId)) ids.add(id);
  return new Set([...ids].filter((id) => receivers.has(id)));
}

/** Which receivers get the message already read. */
function readBy(senderId: number, readBySender: boolean, input: SendMessageInput): (id: number) => boolean {
  const read = new Set(input.readBy);
  if (readBySender) read.add(senderId);
  const unread = input.unreadOnlyFor === undefined ? null : new Set(input.unreadOnlyFor);
  return (id) => read.has(id) || (unread !== null && !unread.has(id));
}

/**
 * Flag bits of the receivers whose flags at send time differ from the default (the sender's is
 * read, everyone else's none); the channel-wide wildcard is derived at read time. Only the
 * sender, mentioned users and those named by `readBy` can differ, unless `unreadOnlyFor` makes
 * every other receiver's read.
 */
function storedSendFlags(senderId: number, receivers: ReadonlySet<number>, isRead: (id: number) => boolean, input: SendMessageInput, mentioned: Set<number>, topicWildcard: Set<number>): Map<number, number> {
  const candidates = input.unreadOnlyFor === undefined ? new Set([senderId, ...(input.readBy ?? []), ...mentioned, ...topicWildcard]) : receivers;
  const out = new Map<number, number>();
  for (const id of candidates) {
    if (!receivers.has(id)) continue;
    let bits = isRead(id) ? MESSAGE_FLAG.read : 0;
    if (mentioned.has(id)) bits |= MESSAGE_FLAG.mentioned;
    if (topicWildcard.has(id)) bits |= MESSAGE_FLAG.topic_wildcard_mentioned;
    if (bits !== defaultFlagBits(id, { sender_id: senderId })) out.set(id, bits);
  }
  return out;
}

/**
 * The message event's delivery: one template with each receiver's flags inside; queues that asked
 * for all public channels get it too. Published by the caller after commit.
 */
async function messageDelivery(ctx: AuthedCtx, tx: Db, message: MessageRow, target: Target, flags: Map<number, number>, input: SendMessageInput, linkifiers: readonly Linkifier[]): Promise<Delivery> {
  const host = emailDomain(ctx.config.externalUrl);
  const lookups = target.stream === null ? await loadMessageLookups(tx, ctx.realm, [message], host) : newChannelMessageLookups(ctx.realm, host, ctx.actor, target.stream, linkifiers);
  const presented = presentMessage(message, ctx.actor, TEMPLATE_PRESENT_OPTIONS, lookups);
  const userFlags: Record<string, readonly string[]> = {};
  for (const id of target.receiverIds) {
    userFlags[id] = flagNames(effectiveFlagBits(id, message, { received: true, stored: flags.get(id) }));
  }
  const sender = ctx.actor;
  const template = messageEventTemplate(presented, {
    raw_content: message.content,
    user_flags: userFlags,
    gravatar_computable: sender.email_address_visibility === EMAIL_VISIBILITY.everyone && sender.avatar_source === "G",
    empty_topic_display_name: realmSettings(ctx.realm).realm_empty_topic_display_name,
    sender_queue_id: input.queueId ?? null,
    local_id: input.localId ?? null,
  });
  const publicChannel = target.stream !== null && target.stream.invite_only === 0;
  return { realmId: ctx.realm.id, event: template, userIds: target.receiverIds, allPublicStreamsQueues: publicChannel };
}

/** Sends a channel or direct message as the caller. */
export async function sendMessage(ctx: AuthedCtx, input: SendMessageInput): Promise<SendMessageResult> {
  if (input.queueId !== undefined && input.localId === undefined) throw new JsonableError("Missing 'local_id' argument", { code: "REQUEST_VARIABLE_MISSING", data: { var_name: "local_id" } });
  const content = normalizeContent(input.content, ctx.realm);
  const readBySender = input.readBySender ?? defaultReadBySender(ctx.client);
  const { result, delivery } = await withTransaction(ctx, async (tx, emit) => {
    const target = input.type === "stream" ? await channelTarget(ctx, tx, input) : await directTarget(ctx, tx, input);
    const renderContext = await loadRenderContext(ctx, tx, ctx.actor, content);
    const rendered = renderMessage(content, renderContext);
    const participants = target.stream && rendered.wildcard.topic ? [...new Set([...(await topicParticipantIds(tx, ctx.realm.id, target.stream.id, target.topic)), ctx.actor.id])] : [];
    await checkMentions(ctx, tx, target, rendered, participants);
    const message = await insertMessage(tx, {
      realm_id: ctx.realm.id,
      sender_id: ctx.actor.id,
      recipient_id: target.recipientId,
      stream_id: target.stream?.id ?? null,
      topic: target.topic,
      content,
      rendered_content: rendered.html,
      date_sent: nowSeconds(ctx.clock),
      sending_client: ctx.client,
      last_edit_time: null,
      last_moved_time: null,
      edit_history: null,
      is_me_message: rendered.isMeMessage ? 1 : 0,
      has_link: rendered.hasLink ? 1 : 0,
      has_image: rendered.hasImage ? 1 : 0,
      has_attachment: rendered.hasAttachment ? 1 : 0,
      stream_wildcard_mention: rendered.wildcard.channel ? 1 : 0,
    });
    await claimAttachments(tx, ctx.realm.id, ctx.actor.id, message.id, rendered.linkedUploadPaths, emit);
    const receivers = new Set(target.receiverIds);
    const mentioned = await mentionedIds(tx, rendered, receivers);
    const topicWildcard = new Set(participants.filter((id) => receivers.has(id)));
    const stored = storedSendFlags(ctx.actor.id, receivers, readBy(ctx.actor.id, readBySender, input), input, mentioned, topicWildcard);
    await insertFlagRows(tx, message.id, stored);
    await indexNewMessage(tx, ctx.engine, { id: message.id, topic: message.topic, renderedContent: message.rendered_content });
    const delivery = await messageDelivery(ctx, tx, message, target, stored, input, renderContext.linkifiers ?? []);
    const result: SendMessageResult = { id: message.id };
    if (target.stream) {
      if (target.stream.first_message_id === null) await updateStream(tx, ctx.realm.id, target.stream.id, { first_message_id: message.id });
      const policy = await applySenderVisibility(ctx, tx, emit, ctx.actor, target.stream, message);
      if (policy !== undefined) result.automatic_new_visibility_policy = policy;
      const mentionedUsers = mentioned.size === 0 ? [] : await usersByIds(tx, ctx.realm.id, [...mentioned]);
      await followForMentions(ctx, tx, emit, mentionedUsers, message);
    }
    return { result, delivery };
  });
  // After commit, and after the user_topic events emitted inside the transaction (Zulip's order).
  ctx.bus.publish([delivery]);
  return result;
}

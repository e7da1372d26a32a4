/**
 * POST /typing and POST /messages/{message_id}/typing (Zulip's send_notification_backend,
 * send_message_edit_notification_backend and zerver/actions/typing.py). Nothing is stored: each
 * request is checked, then becomes one event for those of the conversation's users who receive
 * typing notifications.
 */
import { JsonableError } from "../../errors.ts";
import { nowSeconds } from "../../clock.ts";
import type { ActionCtx, AuthedCtx } from "../context.ts";
import type { ApiEvent } from "../../events/types.ts";
import { directTypingEvent, streamTypingEvent, typingEditMessageEvent, type TypingUser } from "../../events/kinds/typing.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import { activeUsersByIds, subscriberIds } from "../../store/channels/subscriptions.ts";
import type { Db } from "../../store/schema/types.ts";
import { userSetting } from "../../model/user-settings.ts";
import { usersByIds } from "../../store/users/users.ts";
import { checkCanEditContent } from "./edit-checks.ts";
import { checkCanPost } from "./send-recipients.ts";

/** The legacy spelling of the empty topic, read as "" (FL 372). */
const LEGACY_NO_TOPIC = "(no topic)";

type TypingOp = "start" | "stop";

/** POST /typing's parameters. */
type TypingInput = { type: "direct" | "stream" | "channel"; op: TypingOp; to?: number[]; stream_id?: number; topic?: string };

/**
 * Publishes at once: nothing was written, so there is no commit to wait for (Zulip's
 * send_event_rollback_unsafe).
 */
function publishNow(ctx: ActionCtx, event: ApiEvent, userIds: Iterable<number>): void {
  const ids = [...new Set(userIds)];
  if (ids.length > 0) ctx.bus.publish([{ realmId: ctx.realm.id, event, userIds: ids }]);
}

/** Whether a user's clients are shown others' typing (receives_typing_notifications, FL 253). */
function receivesTyping(user: UserRow): boolean {
  return user.is_active === 1 && userSetting(user, "receives_typing_notifications") === true;
}

/** Refuses typing notifications the sender turned off for this kind of conversation. */
function checkSends(actor: UserRow, kind: "channel" | "direct"): void {
  const setting = kind === "channel" ? "send_stream_typing_notifications" : "send_private_typing_notifications";
  if (userSetting(actor, setting) !== true) {
    throw new JsonableError(`User has disabled typing notifications for ${kind === "channel" ? "channel" : "direct"} messages`);
  }
}

/**
 * The channel's subscribers to notify: none when the channel has more than `max` (Zulip's
 * MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS, counting every active subscriber: each notification
 * would wake that many queues), else those who receive typing notifications.
 */
async function channelAudience(db: Db, realm: RealmRow, streamId: number, max: number): Promise<number[]> {
  const ids = await subscriberIds(db, realm.id, streamId);
  if (ids.length > max) return [];
  return (await activeUsersByIds(db, realm.id, ids)).filter(receivesTyping).map((u) => u.id);
}

/** The user as typing events name them. */
function typingUser(ctx: ActionCtx, user: UserRow): TypingUser {
  return { user_id: user.id, email: apiEmail(user, emailDomain(ctx.config.externalUrl)) };
}

/** Typing in a channel topic: the sender must be allowed to post there. */
async function sendChannelTyping(ctx: AuthedCtx, op: TypingOp, streamId: number | undefined, rawTopic: string | undefined): Promise<void> {
  if (streamId === undefined) throw new JsonableError("Missing 'stream_id' argument");
  if (rawTopic === undefined) throw new JsonableError("Missing topic");
  checkSends(ctx.actor, "channel");
  const { stream } = await accessStreamById(ctx, streamId);
  await checkCanPost(ctx, ctx.db, stream);
  const display = realmSettings(ctx.realm).realm_empty_topic_display_name;
  const topic = rawTopic === display || rawTopic === LEGACY_NO_TOPIC ? "" : rawTopic;
  publishNow(ctx, streamTypingEvent(op, typingUser(ctx, ctx.actor), stream.id, topic, display), await channelAudience(ctx.db, ctx.realm, stream.id, ctx.config.typingMaxChannelSubscribers));
}

/**
 * Typing to a direct conversation: every listed user must exist (deactivated ones too, so
 * clients can tell which conversation it is); the sender is always a participant.
 */
async function sendDirectTyping(ctx: AuthedCtx, op: TypingOp, to: number[] | undefined): Promise<void> {
  if (to === undefined) throw new JsonableError("Missing 'to' argument");
  if (to.length === 0) throw new JsonableError("Empty 'to' list");
  checkSends(ctx.actor, "direct");
  const ids = [...new Set([...to, ctx.actor.id])];
  const byId = new Map((await usersByIds(ctx.db, ctx.realm.id, ids)).map((u) => [u.id, u]));
  const unknown = ids.find((id) => !byId.has(id));
  if (unknown !== undefined) throw new JsonableError(`Invalid user ID ${unknown}`);
  const users = ids.flatMap((id) => byId.get(id) ?? []);
  const event = directTypingEvent(op, typingUser(ctx, ctx.actor), users.map((u) => typingUser(ctx, u)));
  publishNow(ctx, event, users.filter(receivesTyping).map((u) => u.id));
}

/** POST /typing: the caller started or stopped composing to a direct conversation or a channel topic. */
export async function setTypingStatus(ctx: AuthedCtx, input: TypingInput): Promise<Record<string, never>> {
  if (input.type === "direct") await sendDirectTyping(ctx, input.op, input.to);
  else await sendChannelTyping(ctx, input.op, input.stream_id, input.topic);
  return {};
}

/**
 * POST /messages/{message_id}/typing (FL 351): the caller started or stopped editing a message
 * whose content they may edit right now (no grace period past the edit limit, as Zulip).
 */
export async function setEditTypingStatus(ctx: AuthedCtx, messageId: number, input: { op: TypingOp }): Promise<Record<string, never>> {
  const { message, stream } = await accessMessage(ctx, ctx.db, messageId, { forModify: true });
  const now = nowSeconds(ctx.clock);
  checkCanEditContent(ctx.realm, ctx.actor, message, now);
  const limit = realmSettings(ctx.realm).message_content_edit_limit_seconds;
  if (limit !== null && now - message.date_sent > limit) throw new JsonableError("The time limit for editing this message has passed");
  if (stream !== null) {
    checkSends(ctx.actor, "channel");
    const event = typingEditMessageEvent(input.op, ctx.actor.id, message.id, { type: "channel", channel_id: stream.id, topic: message.topic });
    publishNow(ctx, event, await channelAudience(ctx.db, ctx.realm, stream.id, ctx.config.typingMaxChannelSubscribers));
    return {};
  }
  checkSends(ctx.actor, "direct");
  const members = (await directRecipientMembers(ctx.db, [message.recipient_id])).get(message.recipient_id) ?? [];
  // As Zulip, the event lists exactly the users it is sent to.
  const notified = (await activeUsersByIds(ctx.db, ctx.realm.id, members)).filter(receivesTyping).map((u) => u.id).sort((a, b) => a - b);
  publishNow(ctx, typingEditMessageEvent(input.op, ctx.actor.id, message.id, { type: "direct", user_ids: notified }), notified);
  return {};
}

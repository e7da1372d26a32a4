/**
 * PATCH /messages/{id} (Zulip's check_update_message): content edits, topic edits, resolving
 * and channel moves with a propagate mode. Checks in upstream's order, writes in one
 * transaction, then `update_message` events (each user with their own flags) and
 * `delete_message` events to users a channel move takes the messages away from.
 */
import { nowSeconds } from "../../clock.ts";
import { JsonableError } from "../../errors.ts";
import { topicLinks } from "../../markdown/topic-links.ts";
import { updateMessageEvent, deleteMessageEvent, type UpdateMessageBase } from "../../events/kinds/message-updates.ts";
import { isGuest, isModeratorOrAbove } from "../../permissions/check.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { accessMessage, messageEventUserIds, receiverIds } from "../../permissions/message-access.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import type { EditHistoryEntry } from "../../present/messages.ts";
import type { Db } from "../../store/schema/types.ts";
import { listLinkifiers } from "../../store/realm/linkifiers.ts";
import { effectiveFlagBits, flagNames, messageFlagRows } from "../../store/messages/message-flags.ts";
import { setMessageEditHistory } from "../../store/messages/messages.ts";
import type { MessageRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import { subscriberIds } from "../../store/channels/subscriptions.ts";
import { getUser, userRolesByIds } from "../../store/users/users.ts";
import { doEnv, withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import * as checks from "./edit-checks.ts";
import { editedContent, renderEdit, updateMentionFlags, writeContent, type RenderedEdit } from "./edit-content.ts";
import { reconcileMovedFlags } from "./move-flags.ts";
import { applyMove, messagesToMove, topicMessages, withHistoryEntry } from "./move.ts";
import { planMoveNotices } from "./move-notices.ts";
import { doSendNotices, type Notice } from "./notification-bot.ts";
import { doRemoveUnmentionedNotifications } from "../push/removals.ts";
import { doQueueEditPush } from "../push/message-notify.ts";
import { doQueueEditEmails } from "../email-notifications/queue.ts";

/** The request, as PATCH /messages/{id} names it. */
type UpdateMessageInput = {
  message_id: number;
  content?: string;
  topic?: string;
  stream_id?: number;
  propagate_mode: checks.PropagateMode;
  send_notification_to_old_thread: boolean;
  send_notification_to_new_thread: boolean;
};

/** A validated channel-message move. */
type Move = { topic: string | null; requestedTopic: string | null; to: StreamRow | null; resolved: boolean; unresolved: boolean };

/** Validates an edit and applies it; returns the response data. */
export async function updateMessage(ctx: AuthedCtx, input: UpdateMessageInput): Promise<{ detached_uploads: never[] }> {
  await withTransaction(ctx, async (tx, emit): Promise<void> => {
    const now = nowSeconds(ctx.clock);
    const { message, stream } = await accessMessage(ctx, tx, input.message_id, { forModify: true });
    if (input.content !== undefined) checks.checkCanEditContent(ctx.realm, ctx.actor, message, now);
    const topic = stream === null ? input.topic : checks.requestedTopic(input.topic, ctx.realm, message.topic);
    const streamId = stream !== null && input.stream_id === stream.id ? undefined : input.stream_id;
    validatePayload(ctx, message, { ...input, topic, stream_id: streamId });
    const content = input.content === undefined ? undefined : editedContent(input.content, ctx);
    if (stream === null) {
      if (content === undefined) throw new JsonableError("Nothing to change");
      await editDirectContent(ctx, tx, emit, message, content, now);
      return;
    }
    const move = await planMove(ctx, tx, message, stream, topic, streamId, now);
    await checkMoveLimits(ctx, tx, message, stream, move, input.propagate_mode, now);
    const sender = await getUser(tx, ctx.realm.id, message.sender_id);
    if (!sender) throw new Error(`sender of message ${message.id} missing`);
    const rendered = content === undefined ? null : await renderEdit(ctx, tx, message, sender, stream, content);
    const notify = { notifyOld: input.send_notification_to_old_thread, notifyNew: input.send_notification_to_new_thread };
    // The move's notices are written with it, their events after the move's.
    await doSendNotices(tx, doEnv(ctx, emit), await editChannelMessage(ctx, tx, emit, { message, stream, move, rendered, mode: input.propagate_mode, now, notify }));
  });
  return { detached_uploads: [] };
}

/** Upstream's validate_message_edit_payload, after the topic was normalized. */
function validatePayload(ctx: AuthedCtx, message: MessageRow, input: Omit<UpdateMessageInput, "message_id">): void {
  if (input.topic === undefined && input.content === undefined && input.stream_id === undefined) throw new JsonableError("Nothing to change");
  if (message.stream_id === null) {
    if (input.stream_id !== undefined) throw new JsonableError("Direct messages cannot be moved to channels.");
    if (input.topic !== undefined) throw new JsonableError("Direct messages cannot have topics.");
  }
  if (input.propagate_mode !== "change_one" && input.topic === undefined && input.stream_id === undefined) {
    throw new JsonableError("Invalid propagate_mode without topic edit");
  }
  if (input.topic !== undefined) checks.checkTopicText(input.topic, ctx.realm);
  if (input.stream_id !== undefined && input.content !== undefined) throw new JsonableError("Cannot change message content while changing channel");
}

/** Target channel and topic of a channel-message edit, with the topic permission checks. */
async function planMove(ctx: AuthedCtx, tx: Db, message: MessageRow, stream: StreamRow, topic: string | undefined, streamId: number | undefined, now: number): Promise<Move> {
  const to = streamId === undefined ? null : (await accessStreamById({ ...ctx, db: tx }, streamId)).stream;
  const stored = topic === undefined ? null : checks.truncateTopic(topic, ctx.realm);
  const toggle = topic === undefined || stored === null ? { resolved: false, unresolved: false } : checks.resolveToggle(message.topic, topic, stored);
  if (stored !== null || to !== null) checks.checkEmptyTopicAllowed(ctx.realm, stored ?? message.topic);
  if (stored !== null) {
    const target = to ?? stream;
    if (toggle.resolved || toggle.unresolved) {
      if (!(await checks.canResolveTopics(tx, ctx.realm, ctx.actor, stream, target))) {
        throw new JsonableError("You don't have permission to resolve topics in this channel.");
      }
    } else {
      if (!(await checks.canEditTopic(tx, ctx.realm, ctx.actor, stream, target))) throw new JsonableError("You don't have permission to edit this message");
      checks.checkTopicMoveTime(ctx.realm, ctx.actor, message, now);
    }
  }
  return { topic: stored, requestedTopic: topic ?? null, to, ...toggle };
}

/** Channel-move permissions and limits, and the change_all time limit. */
async function checkMoveLimits(ctx: AuthedCtx, tx: Db, message: MessageRow, stream: StreamRow, move: Move, mode: checks.PropagateMode, now: number): Promise<void> {
  if (move.to !== null) {
    if (!(await checks.canMoveOutOfChannel(tx, ctx.realm, ctx.actor, stream))) throw new JsonableError("You don't have permission to move this message");
    await checkCanPostGroup(tx, ctx.actor, move.to);
    checks.checkChannelMoveTime(ctx.realm, ctx.actor, message, now);
  }
  const moved = move.topic !== null || move.to !== null;
  if (mode === "change_all" && moved && !isModeratorOrAbove(ctx.actor) && !move.resolved && !move.unresolved) {
    checks.checkChangeAllTime(ctx.realm, await topicMessages(tx, ctx.actor, message, stream), { topic: move.topic !== null, stream: move.to !== null }, now);
  }
}

/** A move target must let the actor post (upstream checks only can_send_message_group here). */
async function checkCanPostGroup(tx: Db, actor: UserRow, to: StreamRow): Promise<void> {
  if (!(await isUserInGroup(tx, to.can_send_message_group_id, actor.id))) throw new JsonableError("You do not have permission to post in this channel.");
}

/** A direct message's content edit: row, flags, history, and the event to its participants. */
async function editDirectContent(ctx: AuthedCtx, tx: Db, emit: Emit, message: MessageRow, content: string, now: number): Promise<void> {
  const sender = await getUser(tx, ctx.realm.id, message.sender_id);
  if (!sender) throw new Error(`sender of message ${message.id} missing`);
  const rendered = await renderEdit(ctx, tx, message, sender, null, content);
  const entry: EditHistoryEntry = { user_id: ctx.actor.id, timestamp: now, prev_content: message.content, prev_rendered_content: message.rendered_content };
  const row = await writeContent(ctx, tx, emit, message, rendered, now);
  await setMessageEditHistory(tx, message.id, withHistoryEntry(message.edit_history, entry));
  await updateMentionFlags(tx, row, rendered);
  const base: UpdateMessageBase = { ...eventBase(ctx.actor, message, now, [message.id]), ...contentFields(message, rendered) };
  await emitWithFlags(tx, emit, base, row, await messageEventUserIds(tx, ctx.realm.id, [row], null));
}

type ChannelEdit = {
  message: MessageRow;
  stream: StreamRow;
  move: Move;
  rendered: RenderedEdit | null;
  mode: checks.PropagateMode;
  now: number;
  notify: { notifyOld: boolean; notifyNew: boolean };
};

/** A channel message's edit: content, then the move of every covered message, then events; returns the move's notices to post. */
async function editChannelMessage(ctx: AuthedCtx, tx: Db, emit: Emit, edit: ChannelEdit): Promise<Notice[]> {
  const { message, stream, move, rendered, now } = edit;
  const moved = move.topic !== null || move.to !== null;
  const audienceBefore = await messageEventUserIds(tx, ctx.realm.id, [message], stream);
  let target = message;
  if (rendered !== null) {
    target = await writeContent(ctx, tx, emit, message, rendered, now);
    const mentions = await updateMentionFlags(tx, target, rendered);
    const env = doEnv(ctx, emit);
    await doRemoveUnmentionedNotifications(tx, env, target, mentions.unmentioned);
    await doQueueEditPush(tx, env, target, mentions.newlyMentioned, ctx.clock.nowMs());
    await doQueueEditEmails(tx, env, target, mentions.newlyMentioned);
  }
  const movedRows = moved ? await messagesToMove(tx, ctx.actor, message, stream, edit.mode) : [message];
  const entry: EditHistoryEntry = { user_id: ctx.actor.id, timestamp: now };
  if (move.to !== null) Object.assign(entry, { prev_stream: stream.id, stream: move.to.id });
  if (move.topic !== null) Object.assign(entry, { prev_topic: message.topic, topic: move.topic });
  const targetEntry: EditHistoryEntry = rendered === null ? entry : { ...entry, prev_content: message.content, prev_rendered_content: message.rendered_content };
  const plan = { topic: move.topic, toStream: move.to, setsMovedTime: move.to !== null || (move.topic !== null && !move.resolved && !move.unresolved), entry };
  const rows = await applyMove(tx, ctx.engine, ctx.realm.id, movedRows.map((r) => (r.id === target.id ? target : r)), plan, { id: message.id, entry: targetEntry }, now);
  const after = rows.find((r) => r.id === message.id) ?? target;
  let losing: number[] = [];
  let audience = audienceBefore;
  if (move.to !== null) {
    losing = await reconcileMovedFlags(tx, ctx.realm.id, movedRows, stream, move.to);
    audience = await movedAudience(tx, ctx, audienceBefore, stream, move.to, losing);
  }
  const ids = rows.map((r) => r.id);
  const base: UpdateMessageBase = { ...eventBase(ctx.actor, message, now, ids), stream_name: stream.name, stream_id: stream.id };
  if (rendered !== null) Object.assign(base, contentFields(message, rendered));
  if (moved) base.propagate_mode = edit.mode;
  if (move.to !== null) Object.assign(base, { new_stream_id: move.to.id, orig_subject: message.topic });
  if (move.topic !== null) Object.assign(base, { orig_subject: message.topic, subject: move.topic, topic_links: topicLinks(move.topic, await listLinkifiers(tx, ctx.realm.id)) });
  await emitWithFlags(tx, emit, base, after, audience);
  if (losing.length > 0) emit(deleteMessageEvent(ids, { streamId: stream.id, topic: message.topic }), losing);
  const { topic, to, resolved, unresolved } = move;
  return planMoveNotices(ctx, tx, emit, { message, from: stream, to, topic, resolved, unresolved, contentEdited: rendered !== null, mode: edit.mode, movedIds: ids, ...edit.notify });
}

/**
 * Who hears about a channel move: those who could see the message before and still can, plus
 * (shared history) the new channel's subscribers, except guests who only now see it.
 */
async function movedAudience(tx: Db, ctx: AuthedCtx, before: Set<number>, from: StreamRow, to: StreamRow, losing: number[]): Promise<Set<number>> {
  const out = new Set(before);
  if (from.history_public_to_subscribers === 1) {
    const oldSubs = new Set(await subscriberIds(tx, ctx.realm.id, from.id));
    const newSubs = await subscriberIds(tx, ctx.realm.id, to.id);
    const users = await userRolesByIds(tx, ctx.realm.id, newSubs, { activeOnly: false });
    for (const user of users) if (!isGuest(user) || oldSubs.has(user.id)) out.add(user.id);
  }
  for (const id of losing) out.delete(id);
  return out;
}

function eventBase(actor: UserRow, message: MessageRow, now: number, ids: number[]): UpdateMessageBase {
  return { type: "update_message", user_id: actor.id, edit_timestamp: now, message_id: message.id, message_ids: [...ids].sort((a, b) => a - b), rendering_only: false };
}

function contentFields(before: MessageRow, rendered: RenderedEdit): Partial<UpdateMessageBase> {
  return {
    orig_content: before.content,
    orig_rendered_content: before.rendered_content,
    content: rendered.content,
    rendered_content: rendered.render.html,
    is_me_message: rendered.render.isMeMessage,
  };
}

/** Emits the event once per distinct flag list, each user getting their own flags for the target message. */
async function emitWithFlags(tx: Db, emit: Emit, base: UpdateMessageBase, row: MessageRow, userIds: Set<number>): Promise<void> {
  const ids = [...userIds];
  if (ids.length === 0) return;
  const [received, stored] = await Promise.all([
    receiverIds(tx, [row]),
    messageFlagRows(tx, row.id, ids),
  ]);
  const rows = new Map(stored.map((s) => [s.user_id, s.flags]));
  const groups = new Map<string, number[]>();
  for (const id of ids) {
    const names = flagNames(effectiveFlagBits(id, row, { received: received.has(id), stored: rows.get(id) }));
    const key = names.join(",");
    groups.set(key, [...(groups.get(key) ?? []), id]);
  }
  for (const [key, users] of groups) emit(updateMessageEvent(base, key === "" ? [] : key.split(",")), users);
}

/**
 * What the Notification Bot posts after PATCH /messages/{id} moved messages (Zulip's
 * send_message_moved_breadcrumbs and maybe_send_resolve_topic_notifications): the "marked this
 * topic as resolved/unresolved" notice, and the breadcrumbs in the new and old threads. The
 * notices are planned inside the move's transaction (an undone resolve deletes its notice there),
 * all before any is posted; the move then posts them in that transaction (doSendNotices), in
 * upstream's order: resolve notice, new thread, old thread, their events after the move's.
 */
import { nowSeconds } from "../../clock.ts";
import { messageLinkUrl, topicLinkSyntax } from "../../markdown/link-syntax.ts";
import type { Db } from "../../store/schema/types.ts";
import { latestTopicMessage } from "../../store/messages/messages.ts";
import type { MessageRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import { topicFollowerIds } from "../../store/messages/user-topics.ts";
import { doEnv, type AuthedCtx, type Emit } from "../context.ts";
import { doDeleteMessages } from "./delete.ts";
import type { PropagateMode } from "./edit-checks.ts";
import { topicMessages } from "./move.ts";
import { findNotificationBot, silentMention, type Notice } from "./notification-bot.ts";

/**
 * Within this many seconds a resolve undone (or an unresolve redone) deletes the previous notice
 * instead of posting another (upstream's RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS).
 */
const RESOLVE_UNDO_GRACE_SECONDS = 60;

/** Our resolve notices (this codebase keeps no message type, so they are known by sender and text). */
const RESOLVE_NOTICE = /^@_\*\*[^*]+\|\d+\*\* has marked this topic as (?:un)?resolved\.$/;

/** A committed-to channel edit, as the notices need it. */
type MovedEdit = {
  /** The target message as it was before the edit. */
  message: MessageRow;
  from: StreamRow;
  /** The new channel, or null when the channel stays. */
  to: StreamRow | null;
  /** The new topic, or null when the topic stays. */
  topic: string | null;
  resolved: boolean;
  unresolved: boolean;
  contentEdited: boolean;
  mode: PropagateMode;
  movedIds: number[];
  notifyOld: boolean;
  notifyNew: boolean;
};

/**
 * Upstream's maybe_delete_previous_resolve_topic_notification: when the topic's latest message is
 * a resolve notice younger than the grace period, it is deleted (and no new notice is sent).
 */
async function undoRecentResolveNotice(ctx: AuthedCtx, tx: Db, emit: Emit, stream: StreamRow, topic: string): Promise<boolean> {
  const latest = await latestTopicMessage(tx, ctx.realm.id, stream.id, topic);
  if (latest === undefined || nowSeconds(ctx.clock) - latest.date_sent > RESOLVE_UNDO_GRACE_SECONDS) return false;
  const bot = await findNotificationBot(ctx, tx);
  if (bot === undefined || latest.sender_id !== bot.id || !RESOLVE_NOTICE.test(latest.content)) return false;
  await doDeleteMessages(tx, doEnv(ctx, emit), [latest], stream);
  return true;
}

async function resolveNotice(ctx: AuthedCtx, tx: Db, emit: Emit, edit: MovedEdit, topic: string, movedAll: boolean): Promise<Notice | null> {
  if (await undoRecentResolveNotice(ctx, tx, emit, edit.from, topic)) return null;
  // Every user keeps upstream's default resolved_topic_notice_auto_read_policy, "except_followed".
  // Upstream takes a whole topic's followers before moving their follows along; ours stay behind,
  // so the followers of both names are those the topic's follows would have merged into.
  const followers = await topicFollowerIds(tx, ctx.realm.id, edit.from.id, movedAll ? [edit.message.topic, topic] : [topic]);
  const content = `${silentMention(ctx.actor)} has marked this topic as ${edit.resolved ? "resolved" : "unresolved"}.`;
  return { stream: edit.from, topic, content, reads: { readBy: [ctx.actor.id], unreadOnlyFor: followers } };
}

/** The new-thread breadcrumb's text, judged with the actor's own access to the destination topic. */
async function newThreadText(ctx: AuthedCtx, tx: Db, edit: MovedEdit, where: { stream: StreamRow; topic: string }, movedAll: boolean): Promise<string> {
  const { message, from, movedIds } = edit;
  const who = silentMention(ctx.actor);
  const oldLocation = topicLinkSyntax(from, message.topic);
  const moved = new Set(movedIds);
  const preexisting = (await topicMessages(tx, ctx.actor, { ...message, topic: where.topic }, where.stream)).some((m) => !moved.has(m.id));
  if (!preexisting && movedAll) return `This topic was moved here from ${oldLocation} by ${who}.`;
  if (movedIds.length > 1) return `${movedIds.length} messages were moved here from ${oldLocation} by ${who}.`;
  const link = messageLinkUrl(ctx.config.externalUrl, { id: message.id, stream: where.stream, topic: where.topic });
  return `[A message](${link}) was moved here from ${oldLocation} by ${who}.`;
}

function oldThreadText(actor: UserRow, where: { stream: StreamRow; topic: string }, count: number, movedAll: boolean): string {
  const newLocation = topicLinkSyntax(where.stream, where.topic);
  const who = silentMention(actor);
  if (movedAll) return `This topic was moved to ${newLocation} by ${who}.`;
  if (count === 1) return `A message was moved from this topic to ${newLocation} by ${who}.`;
  return `${count} messages were moved from this topic to ${newLocation} by ${who}.`;
}

/**
 * Plans the notices of a move (call inside its transaction, after the messages moved); deletes a
 * just-sent resolve notice that this edit undoes.
 */
export async function planMoveNotices(ctx: AuthedCtx, tx: Db, emit: Emit, edit: MovedEdit): Promise<Notice[]> {
  const { message, from, to, topic } = edit;
  if (topic === null && to === null) return [];
  const where = { stream: to ?? from, topic: topic ?? message.topic };
  // Whether the actor moved every message of the old topic they can see.
  const movedAll = edit.mode === "change_all" || (await topicMessages(tx, ctx.actor, message, from)).length === 0;
  const notices: Notice[] = [];
  const toggled = edit.resolved || edit.unresolved;
  if (topic !== null && to === null && !edit.contentEdited && toggled) {
    const notice = await resolveNotice(ctx, tx, emit, edit, topic, movedAll);
    if (notice !== null) notices.push(notice);
  }
  const readBy = { readBy: [ctx.actor.id] };
  if (edit.notifyNew && (to !== null || (topic !== null && !toggled))) {
    notices.push({ ...where, content: await newThreadText(ctx, tx, edit, where, movedAll), reads: readBy });
  }
  if (edit.notifyOld) {
    notices.push({ stream: from, topic: message.topic, content: oldThreadText(ctx.actor, where, edit.movedIds.length, movedAll), reads: readBy });
  }
  return notices;
}

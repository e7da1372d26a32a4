/**
 * Reminders (Zulip's zerver/actions/reminders.py and zerver/lib/reminders.py, FL 381-415): a
 * user asks to be reminded of a message they can see; at the chosen time the Notification Bot
 * sends them a direct message quoting it (scheduled-worker.ts delivers it). A reminder is stored
 * as a scheduled message of delivery type "remind", checked as a direct message to oneself.
 */
import { reminderRemoveEvent, remindersAddEvent } from "../../events/kinds/reminders.ts";
import { JsonableError, ReminderDoesNotExistError } from "../../errors.ts";
import { messageLinkUrl, topicLinkSyntax, unusedFence } from "../../markdown/link-syntax.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import type { AuthedCaller } from "../../permissions/caller.ts";
import { presentReminder, type ApiReminder } from "../../present/drafts.ts";
import { remindersOf } from "../../register/drafts.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import { deleteScheduledMessage, getOwnScheduledMessage, insertScheduledMessage } from "../../store/messages/scheduled-messages.ts";
import { DELIVERY_TYPE } from "../../store/schema/drafts.ts";
import type { MessageRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { usersByIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { silentMention } from "./notification-bot.ts";
import { checkInFuture } from "./scheduled.ts";
import { checkMessage } from "./send.ts";

/** Zulip's MAX_REMINDER_NOTE_LENGTH. */
const MAX_NOTE_LENGTH = 1000;
/** Zulip's MAX_MESSAGE_LENGTH: the quoted message is cut so the reminder fits. */
const MAX_MESSAGE_LENGTH = 10_000;
const TRUNCATED = "\n[message truncated]";

/** POST /reminders. */
type ReminderInput = { messageId: number; scheduledDeliveryTimestamp: number; note?: string };

/** Zulip's normalize_note_text: trailing whitespace and leading newlines dropped, then the length checked. */
function normalizeNote(note: string): string {
  let end = note.length;
  while (end > 0 && /\s/.test(note[end - 1])) end--;
  let start = 0;
  while (start < end && note[start] === "\n") start++;
  const body = note.slice(start, end);
  if (body.length > MAX_NOTE_LENGTH) throw new JsonableError(`Maximum reminder note length: ${MAX_NOTE_LENGTH} characters`);
  return body;
}

/** "A", "A and B", "A, B, and C". */
function listOf(items: readonly string[]): string {
  if (items.length <= 2) return items.join(" and ");
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}

/** What the reminder's opening line says, with the owner's note quoted after it. */
function opening(direct: boolean, note: string): string {
  const what = direct ? "the following direct message" : "the following message";
  return note === "" ? `You requested a reminder for ${what}.` : `You requested a reminder for ${what}. Note:\n > ${note}`;
}

/** The message's widget, which a reminder names instead of quoting (Zulip's /poll and /todo). */
function widgetName(content: string): string | null {
  if (content.startsWith("/poll")) return "poll";
  if (content.startsWith("/todo")) return "todo list";
  return null;
}

/** Where the message was: `in #**channel>topic@id**`, or `to` its other participants. */
async function whereSaid(ctx: AuthedCaller, db: Db, message: MessageRow, stream: StreamRow | null, sender: UserRow | undefined): Promise<{ url: string; where: string }> {
  const base = ctx.config.externalUrl;
  if (stream !== null) {
    return { url: messageLinkUrl(base, { id: message.id, topic: message.topic, stream }), where: `in ${topicLinkSyntax(stream, message.topic, message.id)}` };
  }
  const memberIds = (await directRecipientMembers(db, [message.recipient_id])).get(message.recipient_id) ?? [message.sender_id];
  const others = memberIds.filter((id) => id !== message.sender_id);
  const shown = others.length > 0 ? await usersByIds(db, ctx.realm.id, others) : sender ? [sender] : [];
  shown.sort((a, b) => a.id - b.id);
  return { url: messageLinkUrl(base, { id: message.id, topic: message.topic, stream: null, memberIds }), where: `to ${listOf(shown.map(silentMention))}` };
}

/**
 * Zulip's get_reminder_formatted_content: the opening line (and note), who said the message where
 * (with links), and the message quoted, cut to fit a message; a poll or todo list is named instead.
 */
export async function reminderContent(ctx: AuthedCaller, db: Db, messageId: number, note: string): Promise<string> {
  const { message, stream } = await accessMessage(ctx, db, messageId);
  const [sender] = await usersByIds(db, ctx.realm.id, [message.sender_id]);
  const { url, where } = await whereSaid(ctx, db, message, stream, sender);
  const who = sender ? silentMention(sender) : "Someone";
  let content = `${opening(stream === null, note)}\n\n`;
  const widget = widgetName(message.content);
  if (widget !== null) return `${content}${who} [sent](${url}) a ${widget} ${where}.`;
  content += `${who} [said](${url}) ${where}:\n`;
  const fence = unusedFence(message.content);
  const room = MAX_MESSAGE_LENGTH - (content.length + `${fence}quote\n\n${fence}`.length);
  const quoted = message.content.length > room ? message.content.slice(0, Math.max(room - TRUNCATED.length, 0)) + TRUNCATED : message.content;
  return `${content}${fence}quote\n${quoted}\n${fence}`;
}

/** GET /reminders: the caller's reminders not sent yet, by delivery time. */
export function listOwnReminders(ctx: AuthedCtx): Promise<ApiReminder[]> {
  return remindersOf(ctx.db, ctx.realm.id, ctx.actor.id);
}

/** POST /reminders: schedules a reminder of a message the caller can see; returns its id. */
export async function createReminder(ctx: AuthedCtx, input: ReminderInput): Promise<number> {
  checkInFuture(ctx, input.scheduledDeliveryTimestamp);
  const note = input.note === undefined ? "" : normalizeNote(input.note);
  return withTransaction(ctx, async (tx, emit) => {
    const content = await reminderContent(ctx, tx, input.messageId, note);
    // Checked as a direct message to oneself, as upstream does (the bot sends it at delivery).
    const request = await checkMessage(ctx, tx, { addressee: { type: "private", to: [ctx.actor] }, content });
    const row = await insertScheduledMessage(tx, {
      realm_id: ctx.realm.id,
      sender_id: ctx.actor.id,
      recipient_id: request.recipientId,
      stream_id: null,
      topic: "",
      content: request.content,
      rendered_content: request.rendered.html,
      has_attachment: request.rendered.hasAttachment ? 1 : 0,
      sending_client: ctx.client,
      scheduled_timestamp: input.scheduledDeliveryTimestamp,
      read_by_sender: 0,
      delivery_type: DELIVERY_TYPE.remind,
      reminder_target_message_id: input.messageId,
      reminder_note: note === "" ? null : note,
    });
    emit(remindersAddEvent([presentReminder(row)]), [ctx.actor.id]);
    return row.id;
  });
}

/** DELETE /reminders/{id}: cancels one of the caller's reminders. */
export async function removeReminder(ctx: AuthedCtx, id: number): Promise<void> {
  await withTransaction(ctx, async (tx, emit) => {
    const row = await getOwnScheduledMessage(tx, ctx.realm.id, ctx.actor.id, id, DELIVERY_TYPE.remind);
    if (!row) throw new ReminderDoesNotExistError();
    await deleteScheduledMessage(tx, ctx.realm.id, id);
    emit(reminderRemoveEvent(id), [ctx.actor.id]);
  });
}

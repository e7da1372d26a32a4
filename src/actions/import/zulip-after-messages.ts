/**
 * What refers to messages, written once they are all in: reactions (unicode, custom and Zulip's
 * extra emoji), widget submessages (when the export has them), uploads with the messages that link
 * them (rows here, files in zulip-files.ts), scheduled messages and reminders.
 */
import { existingMessageIds, insertRows } from "../../store/import/bulk-insert.ts";
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { attachmentRow, reactionRow, scheduledMessageRow, submessageRow, type Row } from "../../formats/zulip/rows.ts";
import { count, flag, refuse, seconds, type ImportEnv } from "./import-env.ts";
import { ZULIP_RECIPIENT, type ZulipImportState } from "./zulip-state.ts";
import { flushConversations, renderedOrText } from "./zulip-messages.ts";

/** Rows checked against the store per round: bounded memory on any number of reactions. */
const ROUND = 1000;

async function checkMessages(env: ImportEnv, ids: readonly number[], what: (id: number) => string): Promise<void> {
  const found = await existingMessageIds(env.tx, ids);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) refuse(`${what(missing)} names message ${missing}, which the export does not hold`);
}

/** Runs `write` on the rows of a table a round at a time. */
async function inRounds<T>(rows: AsyncIterable<T>, write: (round: T[]) => Promise<void>): Promise<number> {
  let round: T[] = [];
  let total = 0;
  for await (const row of rows) {
    round.push(row);
    if (round.length >= ROUND) {
      await write(round);
      total += round.length;
      round = [];
    }
  }
  if (round.length > 0) await write(round);
  return total + round.length;
}

/** Writes reactions and, when the export has them, submessages. */
export async function writeReactions(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const reactions = await inRounds(source.rows("realm", "zerver_reaction", reactionRow), async (round: Array<Row<typeof reactionRow>>) => {
    for (const r of round) if (!state.users.has(r.user_profile)) refuse(`reaction ${r.id} names user ${r.user_profile}, who is not in the export`);
    await checkMessages(env, round.map((r) => r.message), () => "a reaction");
    await insertRows(
      env.tx,
      "reactions",
      round.map((r) => ({ id: r.id, realm_id: env.realmId, message_id: r.message, user_id: r.user_profile, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type })),
    );
  });
  const submessages = await inRounds(source.rows("realm", "zerver_submessage", submessageRow), async (round: Array<Row<typeof submessageRow>>) => {
    await checkMessages(env, round.map((s) => s.message), () => "a submessage");
    await insertRows(env.tx, "submessages", round.map((s) => ({ id: s.id, message_id: s.message, sender_id: s.sender, msg_type: s.msg_type, content: s.content })));
  });
  count(env, "reactions", reactions);
  if (submessages > 0) count(env, "submessages", submessages);
}

/** Writes the uploads' rows and which messages link them; returns the uploads for their files. */
export async function writeAttachments(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<Array<Row<typeof attachmentRow>>> {
  const attachments = await source.all("attachment", "zerver_attachment", attachmentRow);
  for (const a of attachments) {
    if (!state.users.has(a.owner)) refuse(`upload ${a.id} names owner ${a.owner}, who is not in the export`);
    if (!a.path_id.startsWith(`${env.realmId}/`)) refuse(`upload ${a.id}'s path ${a.path_id} is not under the organization's id`);
  }
  await insertRows(
    env.tx,
    "attachments",
    attachments.map((a) => ({ id: a.id, realm_id: env.realmId, owner_id: a.owner, path_id: a.path_id, file_name: a.file_name, size: a.size, content_type: a.content_type, create_time: seconds(a.create_time) })),
  );
  const links = attachments.flatMap((a) => a.messages.map((message_id) => ({ attachment_id: a.id, message_id })));
  for (let i = 0; i < links.length; i += ROUND) await checkMessages(env, links.slice(i, i + ROUND).map((l) => l.message_id), () => "an upload");
  await insertRows(env.tx, "attachment_messages", links);
  count(env, "uploads", attachments.length);
  return attachments;
}

function scheduledAddress(s: Row<typeof scheduledMessageRow>, state: ZulipImportState): { recipientId: number; streamId: number | null } {
  const recipient = state.recipients.get(s.recipient);
  if (!recipient) refuse(`scheduled message ${s.id} names recipient ${s.recipient}, which the export does not hold`);
  if (recipient.type === ZULIP_RECIPIENT.stream) {
    const stream = state.streams.get(recipient.typeId);
    if (!stream) refuse(`scheduled message ${s.id} names channel ${recipient.typeId}, which the export does not hold`);
    return { recipientId: stream.recipientId, streamId: recipient.typeId };
  }
  const conversation = recipient.type === ZULIP_RECIPIENT.directGroup ? state.recipientConversation.get(s.recipient) : state.conversationOf([s.sender, recipient.typeId]);
  if (!conversation) refuse(`scheduled message ${s.id} names a conversation the export does not hold`);
  return { recipientId: conversation.recipientId, streamId: null };
}

/** Writes scheduled messages and reminders, delivered ones included (with the message they became). */
export async function writeScheduledMessages(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const rows = await source.all("realm", "zerver_scheduledmessage", scheduledMessageRow);
  const out = rows.map((s) => {
    if (!state.users.has(s.sender)) refuse(`scheduled message ${s.id} names sender ${s.sender}, who is not in the export`);
    const address = scheduledAddress(s, state);
    return {
      id: s.id,
      realm_id: env.realmId,
      sender_id: s.sender,
      recipient_id: address.recipientId,
      stream_id: address.streamId,
      topic: address.streamId === null ? "" : s.subject,
      content: s.content,
      rendered_content: renderedOrText(s.rendered_content, s.content),
      sending_client: state.clients.get(s.sending_client) ?? "unknown",
      scheduled_timestamp: seconds(s.scheduled_timestamp),
      read_by_sender: flag(s.read_by_sender),
      has_attachment: flag(s.has_attachment),
      delivered: flag(s.delivered),
      delivered_message_id: s.delivered_message,
      failed: flag(s.failed),
      failure_message: s.failure_message,
      delivery_type: s.delivery_type === 2 ? (2 as const) : (1 as const),
      reminder_target_message_id: s.reminder_target_message,
      reminder_note: s.reminder_note,
    };
  });
  const delivered = out.flatMap((s) => (s.delivered_message_id === null ? [] : [s.delivered_message_id]));
  if (delivered.length > 0) await checkMessages(env, delivered, () => "a delivered scheduled message");
  await flushConversations(env, state);
  await insertRows(env.tx, "scheduled_messages", out);
  count(env, "scheduled messages", rows.length);
}

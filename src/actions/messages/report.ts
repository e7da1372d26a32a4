/**
 * POST /messages/{id}/report (Zulip's report_message_backend and send_message_report): a message
 * the reporter can see is quoted, with the reason and their explanation, in the realm's
 * moderation request channel, sent by the realm's Notification Bot (made on first use).
 */
import { unusedFence } from "../../markdown/link-syntax.ts";
import { JsonableError } from "../../errors.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import type { Db } from "../../store/schema/types.ts";
import type { MessageRow, UserRow } from "../../store/schema/database.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import { getStreamById } from "../../store/channels/streams.ts";
import { usersByIds } from "../../store/users/users.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { doSendNotices, silentMention as mention } from "./notification-bot.ts";

/** The report reasons and how the notification names them. */
const REPORT_REASONS = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  norms: "Violates community norms",
  other: "Other reason",
} as const;

/** A report reason as the API names it. */
type ReportType = keyof typeof REPORT_REASONS;

/** Clients' limit on the explanation, which the server enforces too (upstream's MAX_REPORT_MESSAGE_EXPLANATION_LENGTH). */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;

/** Room left in a notification for the quoted message (upstream keeps 500 characters for the template). */
const TEMPLATE_ROOM = 500;

/** Upstream's `<time:...>` for a UNIX timestamp. */
function globalTime(seconds: number): string {
  return `<time:${new Date(seconds * 1000).toISOString().replace(".000Z", "+00:00")}>`;
}

async function reportHeader(db: Db, ctx: AuthedCtx, message: MessageRow, sender: UserRow): Promise<string> {
  const when = globalTime(message.date_sent);
  if (message.stream_id !== null) return `${mention(ctx.actor)} reported a message sent by ${mention(sender)} at ${when}.`;
  const members = (await directRecipientMembers(db, [message.recipient_id])).get(message.recipient_id) ?? [];
  const others = await usersByIds(db, ctx.realm.id, members.filter((id) => id !== sender.id));
  if (others.length <= 1 && sender.id !== ctx.actor.id) return `${mention(ctx.actor)} reported a message sent by ${mention(sender)} at ${when}.`;
  const to = others.length === 0 ? mention(sender) : others.map(mention).join(", ");
  return `${mention(ctx.actor)} reported a message sent by ${mention(sender)} to ${to} at ${when}.`;
}

/** Reports a message to the realm's moderators; the channel is read in the transaction that posts to it. */
export async function reportMessage(ctx: AuthedCtx, input: { message_id: number; report_type: ReportType; description: string }): Promise<void> {
  if (input.report_type === "other" && input.description === "") throw new JsonableError("An explanation is required.");
  await withTransaction(ctx, async (tx, emit) => {
    const settings = realmSettings(ctx.realm);
    const channel = settings.moderation_request_channel_id === -1 ? undefined : await getStreamById(tx, ctx.realm.id, settings.moderation_request_channel_id);
    if (!channel || channel.is_archived === 1) throw new JsonableError("Message reporting is not enabled in this organization.");
    const { message } = await accessMessage(ctx, tx, input.message_id);
    const [sender] = await usersByIds(tx, ctx.realm.id, [message.sender_id]);
    const content = await reportContent(ctx, tx, input, message, sender);
    await doSendNotices(tx, doEnv(ctx, emit), [{ stream: channel, topic: `${sender.full_name} moderation`, content, reads: {} }]);
  });
}

/** The notification's text: who reported whom, the reason and explanation, and the quoted message. */
async function reportContent(ctx: AuthedCtx, db: Db, input: { report_type: ReportType; description: string }, message: MessageRow, sender: UserRow): Promise<string> {
  const header = await reportHeader(db, ctx, message, sender);
  const streamName = message.stream_id === null ? null : (await getStreamById(db, ctx.realm.id, message.stream_id))?.name;
  const original =
    streamName === null || streamName === undefined
      ? `[Original message](${ctx.config.externalUrl}/#narrow/dm/${message.recipient_id}/near/${message.id})`
      : `Original message at #**${streamName}>${message.topic}@${message.id}**`;
  const maxQuote = realmSettings(ctx.realm).max_message_length - MAX_REPORT_DESCRIPTION_LENGTH - TEMPLATE_ROOM;
  const quoted = message.content.length > maxQuote ? `${message.content.slice(0, maxQuote - 20)}\n[message truncated]` : message.content;
  const fence = unusedFence(quoted);
  return `${header}\n\`\`\`quote\n**${REPORT_REASONS[input.report_type]}**. ${input.description}\n\`\`\`\n\n${fence} spoiler ${original}\n${quoted}\n${fence}\n`;
}

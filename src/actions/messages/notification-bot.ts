/**
 * The realm's Notification Bot (Zulip's NOTIFICATION_BOT system bot): found, or created as a
 * generic bot the first time it is needed, and the one way to post as it (Zulip's
 * internal_send_stream_message).
 */
import { ROLE } from "../../store/roles.ts";
import { emailDomain } from "../../store/emails.ts";
import type { Db } from "../../store/types.ts";
import type { StreamRow, UserRow } from "../../store/schema.ts";
import { getUserByDeliveryEmail } from "../../store/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { doCreateUser } from "../users/create.ts";
import { sendMessage } from "./send.ts";

/** Generic bots (Zulip's DEFAULT_BOT type). */
const GENERIC_BOT = 1;

/** Zulip's silent_mention_syntax_for_user: names a user without notifying them. */
export const silentMention = (user: Pick<UserRow, "full_name" | "id">): string => `@_**${user.full_name}|${user.id}**`;

function botEmail(ctx: AuthedCtx): string {
  return `notification-bot@${emailDomain(ctx.config.externalUrl)}`;
}

/** The realm's Notification Bot if it exists yet. */
export function findNotificationBot(ctx: AuthedCtx, db: Db): Promise<UserRow | undefined> {
  return getUserByDeliveryEmail(db, ctx.realm.id, botEmail(ctx));
}

/** The realm's Notification Bot, created the first time it is needed. */
export async function notificationBot(ctx: AuthedCtx): Promise<UserRow> {
  return withTransaction(ctx, async (tx) => {
    const existing = await findNotificationBot(ctx, tx);
    if (existing) return existing;
    return doCreateUser(tx, ctx.clock, ctx.realm, { email: botEmail(ctx), fullName: "Notification Bot", role: ROLE.member, botType: GENERIC_BOT });
  });
}

/** How a notification is marked read: `readBy` always read, and unread only for `unreadOnlyFor` when given. */
export type NoticeReads = { readBy?: number[]; unreadOnlyFor?: number[] };

/** Posts `content` to a channel topic as the Notification Bot, which may post anywhere; returns the message id. */
export async function sendNotice(ctx: AuthedCtx, to: StreamRow, topic: string, content: string, reads: NoticeReads = {}): Promise<number> {
  const bot = await notificationBot(ctx);
  const botCtx = { ...ctx, actor: bot, client: "Internal" };
  const input = { type: "stream" as const, to: JSON.stringify(to.id), topic, content, readBySender: true, systemBot: true, ...reads };
  return (await sendMessage(botCtx, input)).id;
}

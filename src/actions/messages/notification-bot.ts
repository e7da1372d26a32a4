/**
 * Posting as the realm's Notification Bot (Zulip's NOTIFICATION_BOT system bot, found or created
 * by system-bots.ts): notices to channel topics (Zulip's internal_send_stream_message) and direct
 * notices, from rows and inside the caller's transaction.
 */
import { JsonableError } from "../../errors.ts";
import type { Db } from "../../store/schema/types.ts";
import type { StreamRow, UserRow } from "../../store/schema/database.ts";
import { doEnv, type ActionCtx, type DoEnv } from "../context.ts";
import { checkMessage, doSendMessage, type SendRequest } from "./send.ts";
import { doSendSystemDirectMessage, findSystemBot, systemBot } from "./system-bots.ts";

/** Zulip's silent_mention_syntax_for_user: names a user without notifying them. */
export const silentMention = (user: Pick<UserRow, "full_name" | "id">): string => `@_**${user.full_name}|${user.id}**`;

/** The realm's Notification Bot if it exists yet. */
export function findNotificationBot(ctx: ActionCtx, db: Db): Promise<UserRow | undefined> {
  return findSystemBot(ctx, db, "notification");
}

/** The realm's Notification Bot, created in `tx` the first time it is needed. */
export function notificationBot(env: DoEnv, tx: Db): Promise<UserRow> {
  return systemBot(env, tx, "notification");
}

/** How a notification is marked read: `readBy` always read, and unread only for `unreadOnlyFor` when given. */
type NoticeReads = { readBy?: number[]; unreadOnlyFor?: number[] };

/** A message the Notification Bot posts to a channel topic. */
export type Notice = { stream: StreamRow; topic: string; content: string; reads: NoticeReads };

/**
 * Posts notices as the Notification Bot, which may post anywhere, inside the caller's transaction
 * (Zulip's internal_send_stream_message), in order; returns their message ids.
 */
export async function doSendNotices(tx: Db, env: DoEnv, notices: readonly Notice[]): Promise<number[]> {
  if (notices.length === 0) return [];
  const botCtx = doEnv(env, env.emit, await notificationBot(env, tx), "Internal");
  const ids: number[] = [];
  for (const { stream, topic, content, reads } of notices) {
    let request: SendRequest;
    try {
      request = await checkMessage(botCtx, tx, { addressee: { type: "stream", to: stream, topic }, content, readBySender: true, systemBot: true, ...reads });
    } catch (err) {
      // Zulip's _internal_prep_message: an internal message that fails its checks (say, an empty
      // topic where the realm now requires topics) is logged and skipped; the action stands.
      if (!(err instanceof JsonableError)) throw err;
      env.log.warn({ streamId: stream.id, reason: err.message }, "notification bot message skipped");
      continue;
    }
    ids.push((await doSendMessage(tx, env, request)).id);
  }
  return ids;
}

/**
 * Sends `recipient` a direct message from the Notification Bot inside the caller's transaction
 * (Zulip's internal_send_private_message); returns its id, or null when it failed its checks
 * (logged and skipped, as upstream's internal sends).
 */
export function doSendDirectNotice(tx: Db, env: DoEnv, recipient: UserRow, content: string): Promise<number | null> {
  return doSendSystemDirectMessage(tx, env, "notification", recipient, content);
}

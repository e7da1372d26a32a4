/**
 * Zulip's send_pm_if_empty_stream and send_rate_limited_pm_notification_to_bot_owner: when a
 * bot posts to a channel that does not exist, its owner is told by the Notification Bot, at most
 * once per NOTICE_INTERVAL_MS per bot (upstream keeps the bot's last_reminder; this process keeps
 * the time in memory), so a misconfigured integration does not flood its owner.
 */
import { JsonableError, StreamDoesNotExistError, StreamWithIdDoesNotExistError } from "../../errors.ts";
import { getUser } from "../../store/users/users.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { doSendDirectNotice } from "./notification-bot.ts";

/** Zulip's wait between two notices about one bot (10 minutes). */
const NOTICE_INTERVAL_MS = 10 * 60 * 1000;

/** When each bot's owner was last told, by bot id. */
const lastNoticeMs = new Map<number, number>();

/** Whether an error is the send path's "that channel does not exist". */
export function isMissingChannel(err: unknown): err is StreamDoesNotExistError | StreamWithIdDoesNotExistError {
  return err instanceof StreamDoesNotExistError || err instanceof StreamWithIdDoesNotExistError;
}

/** The notice's text, naming the bot by its email and the channel as the bot gave it. */
function noticeText(botEmail: string, err: JsonableError): string {
  const bot = `\`${botEmail}\``;
  if (typeof err.data.stream_id === "number") return `Your bot ${bot} tried to send a message to channel ID ${err.data.stream_id}, but there is no channel with that ID.`;
  return `Your bot ${bot} tried to send a message to channel #**${String(err.data.stream)}**, but that channel does not exist. Click [here](#channels/new) to create it.`;
}

/** If the caller is a bot with an active owner not told lately, tells the owner that `err`'s channel does not exist. */
export async function notifyOwnerOfMissingChannel(ctx: AuthedCtx, err: StreamDoesNotExistError | StreamWithIdDoesNotExistError): Promise<void> {
  const bot = ctx.actor;
  if (bot.is_bot !== 1 || bot.bot_owner_id === null) return;
  const now = ctx.clock.nowMs();
  const last = lastNoticeMs.get(bot.id);
  if (last !== undefined && now - last < NOTICE_INTERVAL_MS) return;
  const owner = await getUser(ctx.db, ctx.realm.id, bot.bot_owner_id);
  if (!owner || owner.is_active !== 1) return;
  lastNoticeMs.set(bot.id, now);
  await withTransaction(ctx, (tx, emit) => doSendDirectNotice(tx, doEnv(ctx, emit), owner, noticeText(bot.delivery_email, err)));
}

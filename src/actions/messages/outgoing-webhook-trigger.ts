/**
 * Which outgoing-webhook bots a message triggers (Zulip's get_service_bot_events): an active
 * outgoing-webhook bot mentioned in a channel message ("mention"), or among the recipients of a
 * direct message ("direct_message"), not the sender. Messages sent by bots trigger nothing, as in
 * Zulip, so two bots cannot answer each other forever. The jobs are written in the message's
 * transaction; actions/bots/outgoing-webhook-worker.ts delivers them after commit, woken by
 * `outgoingWebhookJobsQueued`.
 */
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { insertOutgoingWebhookJobs } from "../../store/messages/outgoing-webhooks.ts";
import { usersByIds } from "../../store/users/users.ts";
import type { DoEnv } from "../context.ts";
import { JobSignal } from "../job-loop.ts";
import { BOT_TYPES } from "../users/bots.ts";
import type { SendRequest } from "./send.ts";

/** Fired when a transaction that queued outgoing-webhook jobs has committed: this process's worker looks at once. */
export const outgoingWebhookJobsQueued = new JobSignal();

const isOutgoingWebhookBot = (u: UserRow) => u.is_active === 1 && u.bot_type === BOT_TYPES.outgoingWebhook;

/**
 * The bots a message triggers: a direct message's addressees, already loaded by the send's
 * checks; a channel message's mentioned users (Zulip also triggers a mentioned bot that is not
 * subscribed; group mentions count through mentionedIds), read only when it mentions someone.
 */
async function triggeredBots(tx: Db, realmId: number, request: SendRequest): Promise<UserRow[]> {
  const senderId = request.sender.id;
  if (request.stream === null) return request.directUsers.filter((u) => u.id !== senderId && isOutgoingWebhookBot(u));
  const ids = new Set([...request.rendered.mentionedUserIds, ...request.mentionedIds]);
  ids.delete(senderId);
  if (ids.size === 0) return [];
  return (await usersByIds(tx, realmId, [...ids])).filter(isOutgoingWebhookBot);
}

/** Writes a delivery job for each outgoing-webhook bot the sent message triggers, in the caller's transaction, due now; its commit wakes the worker. */
export async function doQueueOutgoingWebhooks(tx: Db, env: Pick<DoEnv, "realm" | "clock" | "emit">, messageId: number, request: SendRequest): Promise<void> {
  if (request.sender.is_bot === 1) return;
  const bots = await triggeredBots(tx, env.realm.id, request);
  if (bots.length === 0) return;
  const trigger = request.stream === null ? "direct_message" : "mention";
  const dueAtMs = env.clock.nowMs();
  await insertOutgoingWebhookJobs(
    tx,
    bots.map((bot) => ({ realm_id: env.realm.id, bot_user_id: bot.id, message_id: messageId, trigger, due_at_ms: dueAtMs })),
  );
  env.emit.afterCommit(outgoingWebhookJobsQueued.fire);
}

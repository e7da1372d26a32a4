/**
 * Which outgoing-webhook bots a message triggers (Zulip's get_service_bot_events): an active
 * outgoing-webhook bot mentioned in a channel message ("mention"), or among the recipients of a
 * direct message ("direct_message"), not the sender. Messages sent by bots trigger nothing, as in
 * Zulip, so two bots cannot answer each other forever. The jobs are written in the message's
 * transaction; actions/bots/outgoing-webhook-worker.ts delivers them after commit.
 */
import { systemClock } from "../../clock.ts";
import type { Db } from "../../store/types.ts";
import { insertOutgoingWebhookJobs } from "../../store/outgoing-webhooks.ts";
import { usersByIds } from "../../store/users.ts";
import type { DoEnv } from "../context.ts";
import { BOT_TYPES } from "../users/bots.ts";
import type { SendRequest } from "./send.ts";

/** The users a message may trigger: mentioned ones in a channel, the other participants of a direct message. */
function candidateIds(request: SendRequest): number[] {
  const senderId = request.sender.id;
  if (request.stream === null) return request.receiverIds.filter((id) => id !== senderId);
  // Zulip also triggers a mentioned bot that is not subscribed; group mentions count through mentionedIds.
  const ids = new Set([...request.rendered.mentionedUserIds, ...request.mentionedIds]);
  ids.delete(senderId);
  return [...ids];
}

/** Writes a delivery job for each outgoing-webhook bot the sent message triggers, in the caller's transaction. */
export async function doQueueOutgoingWebhooks(tx: Db, env: Pick<DoEnv, "realm">, messageId: number, request: SendRequest): Promise<void> {
  if (request.sender.is_bot === 1) return;
  const ids = candidateIds(request);
  if (ids.length === 0) return;
  const bots = (await usersByIds(tx, env.realm.id, ids)).filter((u) => u.is_active === 1 && u.bot_type === BOT_TYPES.outgoingWebhook);
  if (bots.length === 0) return;
  const trigger = request.stream === null ? "direct_message" : "mention";
  // Delivery runs on real time (the worker waits on the network), not on a test's manual clock.
  const dueAtMs = systemClock.nowMs();
  await insertOutgoingWebhookJobs(
    tx,
    bots.map((bot) => ({ realm_id: env.realm.id, bot_user_id: bot.id, message_id: messageId, trigger, due_at_ms: dueAtMs })),
  );
}

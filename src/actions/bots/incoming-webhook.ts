/**
 * Incoming webhooks (Zulip's zerver/lib/webhooks/common.py check_send_webhook_message and the
 * generic JSON integration, zerver/webhooks/json): an integration posts with a bot's API key; the
 * message goes to the channel and topic the URL names, or, without a channel, to the bot's owner
 * as a direct message. A channel that does not exist is not an error for the integration: the
 * bot's owner is told instead (by sendMessage: messages/missing-channel-notice.ts) and the request succeeds.
 */
import { JsonableError } from "../../errors.ts";
import { getUser } from "../../store/users/users.ts";
import type { AuthedCtx } from "../context.ts";
import { isMissingChannel } from "../messages/missing-channel-notice.ts";
import type { Addressee } from "../messages/send.ts";
import { sendMessage } from "../messages/send-message.ts";

/** Where the URL sends a webhook's message: `stream` is a channel name or id; `topic` overrides the integration's. */
export type WebhookTarget = { stream?: string; topic?: string };

/** Python's json.dumps(value, indent=2): JSON.stringify's layout, with non-ASCII escaped (ensure_ascii). */
function pythonJsonDump(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The generic JSON integration's message: the payload, pretty-printed in a code block. */
export function jsonWebhookContent(payload: unknown): string {
  return `\`\`\`json\n${pythonJsonDump(payload)}\n\`\`\``;
}

/** Zulip's check_send_webhook_message: posts `content` as the caller where the URL says. */
export async function postWebhookMessage(ctx: AuthedCtx, target: WebhookTarget, topic: string, content: string): Promise<void> {
  let addressee: Addressee;
  if (target.stream === undefined) {
    // No channel: the bot's owner hears it directly (a user who owns no bot, themself).
    const ownerId = ctx.actor.bot_owner_id;
    const owner = ownerId === null ? ctx.actor : await getUser(ctx.db, ctx.realm.id, ownerId);
    if (!owner) throw new JsonableError("The bot's owner does not exist");
    addressee = { type: "private", to: [owner] };
  } else {
    addressee = { type: "stream", to: target.stream, topic: target.topic ?? topic };
  }
  try {
    await sendMessage(ctx, { addressee, content });
  } catch (err) {
    // sendMessage told the bot's owner.
    if (!isMissingChannel(err)) throw err;
  }
}

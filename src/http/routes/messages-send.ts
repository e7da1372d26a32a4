/** POST /messages: send a channel or direct message. */
import { z } from "zod";
import type { Addressee } from "../../actions/messages/send.ts";
import { sendMessage } from "../../actions/messages/send-message.ts";
import { defineEndpoint } from "../endpoint.ts";
import { JsonableError } from "../../errors.ts";
import { bool, str } from "../params.ts";

/** `type` values: `private` is the deprecated alias of `direct`, `channel` of `stream`. */
const MESSAGE_TYPES: Readonly<Record<string, "private" | "stream">> = { direct: "private", private: "private", channel: "stream", stream: "stream" };

/** The canonical message type, or Zulip's refusal. */
function messageType(type: string): "private" | "stream" {
  const canonical = Object.hasOwn(MESSAGE_TYPES, type) ? MESSAGE_TYPES[type] : undefined;
  if (!canonical) throw new JsonableError("Invalid type");
  return canonical;
}

/** The addressee as the request names it; the action resolves `to`. */
function addressee(type: "private" | "stream", to: string, topic: string | undefined): Addressee {
  return type === "stream" ? { type, to, topic } : { type, to };
}

const params = z.object({
  type: str(),
  // A channel name or id, or a list of user ids or emails, JSON-encoded or plain.
  to: z.preprocess((v) => (v === undefined || typeof v === "string" ? v : JSON.stringify(v)), z.string()),
  content: str(),
  topic: str().optional(),
  queue_id: str().optional(),
  local_id: str().optional(),
  read_by_sender: bool().optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/messages",
    auth: "user",
    // The one call incoming-webhook bots may make (Zulip's allow_incoming_webhooks).
    allowIncomingWebhooks: true,
    params,
    aliases: { subject: "topic" },
    // normalizeContent and the topic checks refuse NUL in Zulip's words.
    nulChecked: ["content", "topic"],
    handler: async (p, ctx) =>
      sendMessage(ctx, {
        addressee: addressee(messageType(p.type), p.to, p.topic),
        content: p.content,
        queueId: p.queue_id,
        localId: p.local_id,
        readBySender: p.read_by_sender,
      }),
  }),
];

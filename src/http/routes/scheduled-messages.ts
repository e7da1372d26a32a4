/** Scheduled messages: GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{scheduled_message_id}. */
import { z } from "zod";
import {
  createScheduledMessage,
  editScheduledMessage,
  listOwnScheduledMessages,
  removeScheduledMessage,
  type ScheduledMessageType,
} from "../../actions/messages/scheduled.ts";
import { JsonableError } from "../../errors.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, json, pathInt, str, unixSeconds } from "../params.ts";

/** `type` values: `private` is the deprecated alias of `direct`, `stream` of `channel`. */
const MESSAGE_TYPES: Readonly<Record<string, ScheduledMessageType>> = { direct: "private", private: "private", channel: "stream", stream: "stream" };

/** The canonical message type, or Zulip's refusal (check_string_in). */
function messageType(type: string): ScheduledMessageType {
  const canonical = Object.hasOwn(MESSAGE_TYPES, type) ? MESSAGE_TYPES[type] : undefined;
  if (!canonical) throw new JsonableError("Invalid type");
  return canonical;
}

/** A channel id, or a list of user ids (JSON-encoded). */
const to = () => json(z.union([dbInt(), z.array(dbInt())]));

/** A delivery time; one not in the future is refused by the action. */
const timestamp = unixSeconds;

/** Deprecated parameter names (Zulip's REQ_topic). */
const aliases = { subject: "topic" };
/** Refused by the send checks in Zulip's words, as POST /messages does. */
const nulChecked = ["content", "topic"];

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/scheduled_messages",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => ({ scheduled_messages: await listOwnScheduledMessages(ctx) }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/scheduled_messages",
    auth: "user",
    aliases,
    nulChecked,
    params: z.object({ type: str(), to: to(), content: str(), topic: str().optional(), scheduled_delivery_timestamp: timestamp(), read_by_sender: bool().optional() }),
    handler: async ({ type, ...input }, ctx) => ({ scheduled_message_id: await createScheduledMessage(ctx, { ...input, type: messageType(type) }) }),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/scheduled_messages/:scheduled_message_id",
    auth: "user",
    aliases,
    nulChecked,
    params: z.object({
      scheduled_message_id: pathInt(),
      type: str().optional(),
      to: to().optional(),
      content: str().optional(),
      topic: str().optional(),
      scheduled_delivery_timestamp: timestamp().optional(),
    }),
    handler: async ({ scheduled_message_id, type, ...input }, ctx) => {
      await editScheduledMessage(ctx, scheduled_message_id, { ...input, type: type === undefined ? undefined : messageType(type) });
      return {};
    },
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/scheduled_messages/:scheduled_message_id",
    auth: "user",
    params: z.object({ scheduled_message_id: pathInt() }),
    handler: async ({ scheduled_message_id }, ctx) => {
      await removeScheduledMessage(ctx, scheduled_message_id);
      return {};
    },
  }),
];

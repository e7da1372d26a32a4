/** Editing and moving a message, and its edit history. */
import { z } from "zod";
import { updateMessage } from "../../actions/messages/edit.ts";
import { getMessageHistory } from "../../actions/messages/history.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, int, pathInt, str } from "../params.ts";

const updateParams = z.object({
  message_id: pathInt({ min: 0 }),
  content: str().optional(),
  topic: str().optional(),
  stream_id: int({ min: 0 }).optional(),
  propagate_mode: z.enum(["change_one", "change_later", "change_all"]).default("change_one"),
  send_notification_to_old_thread: bool().default(false),
  send_notification_to_new_thread: bool().default(true),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "PATCH",
    path: "/messages/:message_id",
    auth: "user",
    params: updateParams,
    // `subject` is the name before Zulip 2.0.
    aliases: { subject: "topic" },
    // normalizeContent and the topic checks refuse NUL in Zulip's words.
    nulChecked: ["content", "topic"],
    handler: async (p, ctx) => updateMessage(ctx, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/messages/:message_id/history",
    auth: "user",
    params: z.object({ message_id: pathInt({ min: 0 }), allow_empty_topic_name: bool().default(false) }),
    handler: async (p, ctx) => getMessageHistory(ctx, p.message_id, p.allow_empty_topic_name),
  }),
];

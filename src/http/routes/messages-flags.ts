/** Personal message flags: by message ids, by narrow, and the deprecated mark-as-read calls. */
import { z } from "zod";
import { updateMessageFlagsForNarrow } from "../../actions/messages/flags-narrow.ts";
import { markAllAsRead, markStreamAsRead, updateMessageFlags } from "../../actions/messages/flags.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, int, intList, json, str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/messages/flags",
    auth: "user",
    params: z.object({ messages: intList(), op: str(), flag: str() }),
    handler: async (params, ctx) => updateMessageFlags(ctx, params),
  }),
  defineEndpoint({
    method: "POST",
    path: "/messages/flags/narrow",
    auth: "user",
    params: z.object({
      anchor: str(),
      include_anchor: bool().default(true),
      num_before: int({ min: 0 }),
      num_after: int({ min: 0 }),
      narrow: json(z.array(z.unknown()).nullable()),
      op: str(),
      flag: str(),
    }),
    handler: async (p, ctx) => updateMessageFlagsForNarrow(ctx, p),
  }),
  defineEndpoint({
    method: "POST",
    path: "/mark_all_as_read",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => markAllAsRead(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/mark_stream_as_read",
    auth: "user",
    params: z.object({ stream_id: int() }),
    handler: async (params, ctx) => markStreamAsRead(ctx, params.stream_id),
  }),
  defineEndpoint({
    method: "POST",
    path: "/mark_topic_as_read",
    auth: "user",
    params: z.object({ stream_id: int(), topic_name: str() }),
    handler: async (params, ctx) => markStreamAsRead(ctx, params.stream_id, params.topic_name),
  }),
];

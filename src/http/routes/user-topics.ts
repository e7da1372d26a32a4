/** Personal topic preferences: visibility policies, and the deprecated topic muting call. */
import { z } from "zod";
import { updateMutedTopic, updateUserTopic } from "../../actions/channels/user-topics.ts";
import { defineEndpoint } from "../endpoint.ts";
import { int, str } from "../params.ts";

/** Zulip's MAX_TOPIC_NAME_LENGTH for these calls (check_capped_string). */
const MAX_TOPIC_LENGTH = 60;

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/user_topics",
    auth: "user",
    params: z.object({
      stream_id: int(),
      topic: str().max(MAX_TOPIC_LENGTH),
      visibility_policy: int().pipe(z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])),
    }),
    handler: async (params, ctx) => updateUserTopic(ctx, params),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/users/me/subscriptions/muted_topics",
    auth: "user",
    params: z.object({
      stream_id: int().optional(),
      stream: str().optional(),
      topic: str().max(MAX_TOPIC_LENGTH),
      op: z.enum(["add", "remove"]),
    }),
    handler: async (params, ctx) => updateMutedTopic(ctx, params),
  }),
];

/** Emoji reactions on a message. */
import { z } from "zod";
import { addReaction, removeReaction } from "../../actions/messages/reactions.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt, str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/messages/:message_id/reactions",
    auth: "user",
    params: z.object({ message_id: pathInt(), emoji_name: str(), emoji_code: str().optional(), reaction_type: str().optional() }),
    handler: async ({ message_id, ...emoji }, ctx) => addReaction(ctx, message_id, emoji),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/messages/:message_id/reactions",
    auth: "user",
    params: z.object({ message_id: pathInt(), emoji_name: str().optional(), emoji_code: str().optional(), reaction_type: str().default("unicode_emoji") }),
    handler: async ({ message_id, ...emoji }, ctx) => removeReaction(ctx, message_id, emoji),
  }),
];

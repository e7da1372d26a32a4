/** Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}. */
import { z } from "zod";
import { addRealmEmoji, deactivateEmoji, listEmoji } from "../../actions/emoji/realm-emoji.ts";
import { uploadedFiles } from "../../files/uploaded-file.ts";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/realm/emoji",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => ({ emoji: await listEmoji(ctx) }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/realm/emoji/:emoji_name",
    auth: "user",
    // The image may come under any field name, as Zulip reads request.FILES.
    params: z.looseObject({ emoji_name: str() }),
    handler: async (params, ctx) => {
      await addRealmEmoji(ctx, params.emoji_name, uploadedFiles(params));
      return {};
    },
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/realm/emoji/:emoji_name",
    auth: "user",
    params: z.object({ emoji_name: str() }),
    handler: async ({ emoji_name }, ctx) => {
      await deactivateEmoji(ctx, emoji_name);
      return {};
    },
  }),
];

/** Bots: create, list one's own, update, deactivate, and regenerate a bot's API key. */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { int, json, pathInt, str } from "../params.ts";
import { BOT_TYPES, createBot, getOwnBots, regenerateBotApiKey, updateBot } from "../../actions/users/bots.ts";
import { deactivateBot } from "../../actions/users/deactivate.ts";

/** Zulip's check_url: an absolute http(s) URL. */
function isHttpUrl(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

// Outgoing-webhook format 1: Zulip's own payload.
const DEFAULT_INTERFACE = 1;

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/bots",
    auth: "user",
    params: z.object({
      full_name: str(),
      short_name: str(),
      bot_type: int().default(BOT_TYPES.generic),
      payload_url: json(z.string().refine(isHttpUrl, { message: "{var_name} is not a URL" })).default(""),
      interface_type: int().default(DEFAULT_INTERFACE),
    }),
    handler: (p, ctx) => createBot(ctx, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/bots",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getOwnBots(ctx),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/bots/:bot_id",
    auth: "user",
    params: z.object({ bot_id: pathInt(), full_name: str().optional(), bot_owner_id: int().optional() }),
    handler: ({ bot_id, ...changes }, ctx) => updateBot(ctx, bot_id, changes),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/bots/:bot_id",
    auth: "user",
    params: z.object({ bot_id: pathInt() }),
    handler: (p, ctx) => deactivateBot(ctx, p.bot_id),
  }),
  defineEndpoint({
    method: "POST",
    path: "/bots/:bot_id/api_key/regenerate",
    auth: "user",
    params: z.object({ bot_id: pathInt() }),
    handler: (p, ctx) => regenerateBotApiKey(ctx, p.bot_id),
  }),
];

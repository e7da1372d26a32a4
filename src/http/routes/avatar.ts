/** GET /avatar/{user_id}: a redirect to the user's avatar image (also by API email; `/medium` for 500px). */
import { z } from "zod";
import { defineEndpoint, Redirect } from "../endpoint.ts";
import { str } from "../params.ts";
import { avatarLocation } from "../../actions/users/accounts.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/avatar/:user_id",
    auth: "user",
    params: z.object({ user_id: str() }),
    handler: async (p, ctx) => new Redirect(await avatarLocation(ctx, p.user_id, false)),
  }),
  defineEndpoint({
    method: "GET",
    path: "/avatar/:user_id/medium",
    auth: "user",
    params: z.object({ user_id: str() }),
    handler: async (p, ctx) => new Redirect(await avatarLocation(ctx, p.user_id, true)),
  }),
];

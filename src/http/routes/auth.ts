/** POST /fetch_api_key: password login for API clients (zulip-js, the mobile and terminal apps). */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";
import { fetchApiKey } from "../../actions/users/fetch-api-key.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/fetch_api_key",
    auth: "none",
    params: z.object({ username: str(), password: str() }),
    handler: async ({ username, password }, ctx, { loginLimiter }) => fetchApiKey(ctx, loginLimiter, username, password),
  }),
];

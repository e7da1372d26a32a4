/** GET /server_settings: what a client learns about the server before logging in. */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { serverSettings } from "../../actions/organization/server-settings.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/server_settings",
    auth: "none",
    params: z.object({}),
    handler: async (_params, ctx) => serverSettings(ctx),
  }),
];

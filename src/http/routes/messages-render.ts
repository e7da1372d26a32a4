/** POST /messages/render: preview a message's rendering. */
import { z } from "zod";
import { renderContent } from "../../actions/messages/render.ts";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/messages/render",
    auth: "user",
    params: z.object({ content: str() }),
    handler: async (p, ctx) => renderContent(ctx, p.content),
  }),
];

/** The caller's uploads: GET /attachments, DELETE /attachments/{attachment_id}. */
import { z } from "zod";
import { listAttachments, removeAttachment } from "../../actions/attachments/own.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/attachments",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => listAttachments(ctx),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/attachments/:attachment_id",
    auth: "user",
    params: z.object({ attachment_id: pathInt() }),
    handler: async ({ attachment_id }, ctx) => {
      await removeAttachment(ctx, attachment_id);
      return {};
    },
  }),
];

/** GET /messages/{message_id}/read_receipts. */
import { z } from "zod";
import { getReadReceipts } from "../../actions/messages/read-receipts.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/messages/:message_id/read_receipts",
    auth: "user",
    params: z.object({ message_id: pathInt({ min: 0 }) }),
    handler: async ({ message_id }, ctx) => ({ user_ids: await getReadReceipts(ctx, message_id) }),
  }),
];

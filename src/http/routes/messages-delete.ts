/** Deleting a message. */
import { z } from "zod";
import { deleteMessage } from "../../actions/messages/delete.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "DELETE",
    path: "/messages/:message_id",
    auth: "user",
    params: z.object({ message_id: pathInt({ min: 0 }) }),
    handler: async (p, ctx) => {
      await deleteMessage(ctx, p.message_id);
      return {};
    },
  }),
];

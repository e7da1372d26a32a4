/** Submessages (widget data) attached to messages. */
import { z } from "zod";
import { addSubmessage } from "../../actions/messages/submessages.ts";
import { defineEndpoint } from "../endpoint.ts";
import { int, str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/submessages",
    auth: "user",
    params: z.object({ message_id: int(), msg_type: str(), content: str() }),
    handler: async (params, ctx) => addSubmessage(ctx, params),
  }),
];

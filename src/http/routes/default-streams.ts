/** Default channels: the channels new users join (administrators add and remove them). */
import { z } from "zod";
import { addDefaultStream, removeDefaultStream } from "../../actions/channels/default-streams.ts";
import { defineEndpoint } from "../endpoint.ts";
import { int } from "../params.ts";

const byId = z.object({ stream_id: int() });

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/default_streams",
    auth: "user",
    params: byId,
    handler: (p, ctx) => addDefaultStream(ctx, p.stream_id),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/default_streams",
    auth: "user",
    params: byId,
    handler: (p, ctx) => removeDefaultStream(ctx, p.stream_id),
  }),
];

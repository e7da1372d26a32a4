/** Typing notifications: composing a message (POST /typing) and editing one (POST /messages/{id}/typing). */
import { z } from "zod";
import { setEditTypingStatus, setTypingStatus } from "../../actions/messages/typing.ts";
import { defineEndpoint } from "../endpoint.ts";
import { dbInt, json, pathInt, str } from "../params.ts";

const op = z.enum(["start", "stop"]);

/** `to` and `stream_id` are JSON and may be null (Zulip's `Json[list[int] | None]`); `private` is refused since FL 215. */
const typingParams = z.object({
  type: z.enum(["direct", "stream", "channel"]).optional(),
  op,
  to: json(z.array(dbInt()).nullable()).optional(),
  stream_id: json(dbInt().nullable()).optional(),
  topic: str().optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/typing",
    auth: "user",
    params: typingParams,
    aliases: { subject: "topic" },
    handler: (p, ctx) =>
      setTypingStatus(ctx, { type: p.type ?? "direct", op: p.op, to: p.to ?? undefined, stream_id: p.stream_id ?? undefined, topic: p.topic }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/messages/:message_id/typing",
    auth: "user",
    params: z.object({ message_id: pathInt({ min: 0 }), op }),
    handler: (p, ctx) => setEditTypingStatus(ctx, p.message_id, { op: p.op }),
  }),
];

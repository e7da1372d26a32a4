/** Users' statuses: set one's own, read anyone's. */
import { z } from "zod";
import { getStatus, updateOwnStatus, updateStatusForUser } from "../../actions/users/status.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, pathInt, str } from "../params.ts";

const updateParams = z.object({
  status_text: str().optional(),
  away: bool().optional(),
  emoji_name: str().optional(),
  emoji_code: str().optional(),
  reaction_type: str().optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/users/me/status",
    auth: "user",
    params: updateParams,
    handler: (p, ctx, { presenceWrites }) => updateOwnStatus(ctx, presenceWrites, p),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/:user_id/status",
    auth: "user",
    params: updateParams.omit({ away: true }).extend({ user_id: pathInt() }),
    handler: ({ user_id, ...p }, ctx) => updateStatusForUser(ctx, user_id, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/users/:user_id/status",
    auth: "user",
    params: z.object({ user_id: pathInt() }),
    handler: (p, ctx) => getStatus(ctx, p.user_id),
  }),
];

/** Presence: report one's own and read the realm's (POST /users/me/presence), read the realm's or one user's. */
import { z } from "zod";
import { getRealmPresence, getUserPresenceOf, updateOwnPresence } from "../../actions/users/presence.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, int, str } from "../params.ts";

const updateParams = z.object({
  status: str(),
  ping_only: bool().default(false),
  new_user_input: bool().default(false),
  slim_presence: bool().default(false),
  last_update_id: int().optional(),
  history_limit_days: int().optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/users/me/presence",
    auth: "user",
    params: updateParams,
    handler: (p, ctx, { presenceWrites }) => updateOwnPresence(ctx, presenceWrites, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/realm/presence",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getRealmPresence(ctx),
  }),
  defineEndpoint({
    method: "GET",
    // `{user_id_or_email}`: digits name a user id, anything else an email.
    path: "/users/:user_id/presence",
    auth: "user",
    params: z.object({ user_id: str(), slim_presence: bool().default(false) }),
    handler: ({ user_id, ...input }, ctx) => getUserPresenceOf(ctx, user_id, input),
  }),
];

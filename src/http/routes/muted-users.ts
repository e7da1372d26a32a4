/** Muting users: POST and DELETE /users/me/muted_users/{muted_user_id}. */
import { z } from "zod";
import { muteUser, unmuteUser } from "../../actions/users/muted-users.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/users/me/muted_users/:muted_user_id",
    auth: "user",
    params: z.object({ muted_user_id: pathInt() }),
    handler: async ({ muted_user_id }, ctx) => {
      await muteUser(ctx, muted_user_id);
      return {};
    },
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/users/me/muted_users/:muted_user_id",
    auth: "user",
    params: z.object({ muted_user_id: pathInt() }),
    handler: async ({ muted_user_id }, ctx) => {
      await unmuteUser(ctx, muted_user_id);
      return {};
    },
  }),
];

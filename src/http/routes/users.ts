/** Users: list and read, create, update, deactivate and reactivate, and one's own API key. */
import { z } from "zod";
import { isRole } from "../../model/roles.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, DB_INT_MAX, int, json, pathInt, str } from "../params.ts";
import { getOwnUser, getUser, getUsers, regenerateOwnApiKey } from "../../actions/users/accounts.ts";
import { createUser } from "../../actions/onboarding/create-user.ts";
import { updateUser } from "../../actions/users/update.ts";
import { deactivateOwnUser, deactivateUser, reactivateUser } from "../../actions/users/deactivate.ts";

const userQuery = {
  client_gravatar: bool().default(true),
  include_custom_profile_fields: bool().default(false),
};

/** `/users/{user_id}` and `/users/{email}` share one route: digits name an id, anything else an email. */
const userRef = str();

function parseUserRef(ref: string): number | string {
  if (!/^\d+$/.test(ref)) return ref;
  // An id beyond the database's range names no user (-1: "No such user"), without a query error.
  return Number(ref) <= DB_INT_MAX ? Number(ref) : -1;
}

const updateParams = z.object({
  user_id: userRef,
  full_name: str().optional(),
  role: int().refine(isRole, { message: "Invalid {var_name}" }).optional(),
  profile_data: json(z.array(z.object({ id: z.number().int(), value: z.union([z.string(), z.array(z.number().int())]).nullable() }))).optional(),
  new_email: str().optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/users",
    auth: "user",
    params: z.object(userQuery),
    handler: (p, ctx) => getUsers(ctx, p),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users",
    auth: "user",
    params: z.object({ email: str(), password: str(), full_name: str() }),
    handler: (p, ctx) => createUser(ctx, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/users/me",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getOwnUser(ctx),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/users/me",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => deactivateOwnUser(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/me/api_key/regenerate",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => regenerateOwnApiKey(ctx),
  }),
  defineEndpoint({
    method: "GET",
    path: "/users/:user_id",
    auth: "user",
    params: z.object({ user_id: userRef, ...userQuery }),
    handler: ({ user_id, ...query }, ctx) => getUser(ctx, parseUserRef(user_id), query),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/users/:user_id",
    auth: "user",
    params: updateParams,
    handler: ({ user_id, ...changes }, ctx) => updateUser(ctx, parseUserRef(user_id), changes),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/users/:user_id",
    auth: "user",
    params: z.object({ user_id: pathInt() }),
    handler: (p, ctx) => deactivateUser(ctx, p.user_id),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/:user_id/reactivate",
    auth: "user",
    params: z.object({ user_id: pathInt() }),
    handler: (p, ctx) => reactivateUser(ctx, p.user_id),
  }),
];

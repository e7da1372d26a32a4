/** Custom profile fields (organization configuration) and the caller's own values for them. */
import { z } from "zod";
import {
  createField,
  deleteField,
  listFields,
  removeOwnProfileData,
  reorderFields,
  updateField,
  updateOwnProfileData,
} from "../../actions/organization/profile-fields.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, int, intList, json, pathInt, str } from "../params.ts";

const createParams = z.object({
  name: str().default(""),
  hint: str().default(""),
  field_type: int(),
  field_data: json(z.unknown()).optional(),
  display_in_profile_summary: bool().default(false),
  required: bool().default(false),
  editable_by_user: bool().default(true),
});

const updateParams = z.object({
  field_id: pathInt(),
  name: str().optional(),
  hint: str().optional(),
  field_data: json(z.unknown()).optional(),
  display_in_profile_summary: bool().optional(),
  required: bool().optional(),
  editable_by_user: bool().optional(),
});

const profileData = json(z.array(z.object({ id: dbInt(), value: z.union([z.string(), z.array(dbInt())]) })));

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/realm/profile_fields",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => listFields(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/realm/profile_fields",
    auth: "user",
    params: createParams,
    handler: (p, ctx) => createField(ctx, p),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/realm/profile_fields",
    auth: "user",
    params: z.object({ order: intList() }),
    handler: (p, ctx) => reorderFields(ctx, p.order),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/realm/profile_fields/:field_id",
    auth: "user",
    params: updateParams,
    handler: ({ field_id, ...changes }, ctx) => updateField(ctx, field_id, changes),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/realm/profile_fields/:field_id",
    auth: "user",
    params: z.object({ field_id: pathInt() }),
    handler: (p, ctx) => deleteField(ctx, p.field_id),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/users/me/profile_data",
    auth: "user",
    params: z.object({ data: profileData }),
    handler: (p, ctx) => updateOwnProfileData(ctx, p.data),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/users/me/profile_data",
    auth: "user",
    params: z.object({ data: intList() }),
    handler: (p, ctx) => removeOwnProfileData(ctx, p.data),
  }),
];

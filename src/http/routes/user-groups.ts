/** User groups: creating, listing, updating, deactivating, and their members and subgroups. */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { bool, intList, json, pathInt, str } from "../params.ts";
import { groupSettingChange, groupSettingValue } from "../stream-params.ts";
import { createUserGroup, deactivateUserGroup, listUserGroups, updateUserGroup } from "../../actions/groups/groups.ts";
import {
  getUserGroupMembers,
  getUserGroupSubgroups,
  isUserGroupMember,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from "../../actions/groups/members.ts";
import { GROUP_PERMISSION_SETTINGS, type GroupPermissionSetting } from "../../permissions/group-access.ts";

/** Optional JSON parameters for the six permission settings, each parsed by `schema`. */
function settingParams<T extends z.ZodType>(schema: T) {
  const one = () => json(schema).optional();
  return {
    can_add_members_group: one(),
    can_join_group: one(),
    can_leave_group: one(),
    can_manage_group: one(),
    can_mention_group: one(),
    can_remove_members_group: one(),
  };
}

/** The permission settings present in parsed parameters. */
function pickSettings<V>(params: Partial<Record<GroupPermissionSetting, V | undefined>>): Partial<Record<GroupPermissionSetting, V>> {
  const out: Partial<Record<GroupPermissionSetting, V>> = {};
  for (const name of GROUP_PERMISSION_SETTINGS) {
    const value = params[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

const createParams = z.object({
  name: str(),
  description: str(),
  members: intList(),
  subgroups: intList().optional(),
  ...settingParams(groupSettingValue),
});

// can_mention_group takes only the update-object form since FL 260, like the other settings.
const updateParams = z.object({
  user_group_id: pathInt(),
  name: str().optional(),
  description: str().optional(),
  deactivated: bool().optional(),
  ...settingParams(groupSettingChange),
});

const byId = z.object({ user_group_id: pathInt() });

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/user_groups/create",
    auth: "user",
    params: createParams,
    handler: async (params, ctx) => createUserGroup(ctx, { ...params, settings: pickSettings(params) }),
  }),
  defineEndpoint({
    method: "GET",
    path: "/user_groups",
    auth: "user",
    params: z.object({ include_deactivated_groups: bool().default(false) }),
    // allow_deactivated: the name before FL 294.
    aliases: { allow_deactivated: "include_deactivated_groups" },
    handler: async (params, ctx) => listUserGroups(ctx, params.include_deactivated_groups),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/user_groups/:user_group_id",
    auth: "user",
    params: updateParams,
    handler: async (params, ctx) => updateUserGroup(ctx, params.user_group_id, { ...params, settings: pickSettings(params) }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/user_groups/:user_group_id/deactivate",
    auth: "user",
    params: byId,
    handler: async (params, ctx) => deactivateUserGroup(ctx, params.user_group_id),
  }),
  defineEndpoint({
    method: "POST",
    path: "/user_groups/:user_group_id/members",
    auth: "user",
    params: byId.extend({ add: intList().optional(), delete: intList().optional(), add_subgroups: intList().optional(), delete_subgroups: intList().optional() }),
    handler: async (params, ctx) => updateUserGroupMembers(ctx, params.user_group_id, params),
  }),
  defineEndpoint({
    method: "POST",
    path: "/user_groups/:user_group_id/subgroups",
    auth: "user",
    params: byId.extend({ add: intList().optional(), delete: intList().optional() }),
    handler: async (params, ctx) => updateUserGroupSubgroups(ctx, params.user_group_id, params),
  }),
  defineEndpoint({
    method: "GET",
    path: "/user_groups/:user_group_id/members",
    auth: "user",
    params: byId.extend({ direct_member_only: bool().default(false) }),
    handler: async (params, ctx) => getUserGroupMembers(ctx, params.user_group_id, params.direct_member_only),
  }),
  defineEndpoint({
    method: "GET",
    path: "/user_groups/:user_group_id/members/:user_id",
    auth: "user",
    params: byId.extend({ user_id: pathInt(), direct_member_only: bool().default(false) }),
    handler: async (params, ctx) => isUserGroupMember(ctx, params.user_group_id, params.user_id, params.direct_member_only),
  }),
  defineEndpoint({
    method: "GET",
    path: "/user_groups/:user_group_id/subgroups",
    auth: "user",
    params: byId.extend({ direct_subgroup_only: bool().default(false) }),
    handler: async (params, ctx) => getUserGroupSubgroups(ctx, params.user_group_id, params.direct_subgroup_only),
  }),
];

/** Subscribing and unsubscribing, the caller's subscriptions and their personal settings. */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, json, pathInt } from "../params.ts";
import { groupSettingParams, groupSettingValue, pickGroupSettings, principals, retentionDays } from "../stream-params.ts";
import { subscribe } from "../../actions/channels/subscribe.ts";
import { updateSubscriptions } from "../../actions/channels/update-subscriptions.ts";
import { listSubscriptions, subscriptionStatus, unsubscribe, updateSubscriptionProperties } from "../../actions/channels/subscriptions.ts";
import { REALM_SCALAR_DEFAULTS } from "../../permissions/realm-settings.ts";

const subscribeParams = z.object({
  subscriptions: json(
    z.array(
      z.object({
        name: z.string(),
        color: z.string().optional(),
        description: z.string().max(REALM_SCALAR_DEFAULTS.max_stream_description_length).optional(),
      }),
    ),
  ),
  principals: principals().optional(),
  authorization_errors_fatal: bool().default(true),
  // Accepted for compatibility: no notification bot announces new channels yet.
  announce: bool().optional(),
  invite_only: bool().default(false),
  is_web_public: bool().default(false),
  history_public_to_subscribers: bool().optional(),
  message_retention_days: retentionDays().optional(),
  ...groupSettingParams(groupSettingValue),
});

const unsubscribeParams = z.object({
  subscriptions: json(z.array(z.string())),
  principals: principals().optional(),
});

const updateParams = z.object({
  add: json(
    z.array(z.object({ name: z.string(), color: z.string().optional(), description: z.string().max(REALM_SCALAR_DEFAULTS.max_stream_description_length).optional() })),
  ).default([]),
  delete: json(z.array(z.string())).default([]),
});

const propertiesParams = z.object({
  subscription_data: json(
    z.array(z.object({ stream_id: dbInt(), property: z.string(), value: z.union([z.boolean(), z.string()]) })),
  ),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/users/me/subscriptions",
    auth: "user",
    params: z.object({ include_subscribers: bool().default(false) }),
    handler: async (params, ctx) => listSubscriptions(ctx, params.include_subscribers),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/me/subscriptions",
    auth: "user",
    params: subscribeParams,
    handler: async (params, ctx) => subscribe(ctx, { ...params, groupSettings: pickGroupSettings(params) }),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/users/me/subscriptions",
    auth: "user",
    params: unsubscribeParams,
    handler: async (params, ctx) => unsubscribe(ctx, params),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/users/me/subscriptions",
    auth: "user",
    params: updateParams,
    handler: async (params, ctx) => updateSubscriptions(ctx, params),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/me/subscriptions/properties",
    auth: "user",
    params: propertiesParams,
    handler: async (params, ctx) => updateSubscriptionProperties(ctx, params.subscription_data),
  }),
  defineEndpoint({
    method: "GET",
    path: "/users/:user_id/subscriptions/:stream_id",
    auth: "user",
    params: z.object({ user_id: pathInt(), stream_id: pathInt() }),
    handler: async (params, ctx) => subscriptionStatus(ctx, params.user_id, params.stream_id),
  }),
];

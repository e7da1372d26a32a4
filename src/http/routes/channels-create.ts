/** POST /channels/create (FL 417): one new channel, with its subscribers and initial settings. */
import { z } from "zod";
import { createChannel } from "../../actions/channels/create.ts";
import { REALM_SCALAR_DEFAULTS } from "../../permissions/realm-settings.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, intList, json, str } from "../params.ts";
import { groupSettingParams, groupSettingValue, pickGroupSettings, retentionDays } from "../stream-params.ts";

const createParams = z.object({
  name: str(),
  description: str().max(REALM_SCALAR_DEFAULTS.max_stream_description_length).optional(),
  subscribers: intList().default([]),
  // Accepted for compatibility: no notification bot announces new channels yet.
  announce: bool().optional(),
  invite_only: bool().default(false),
  is_web_public: bool().default(false),
  is_default_stream: bool().default(false),
  history_public_to_subscribers: bool().optional(),
  message_retention_days: retentionDays().optional(),
  folder_id: json(dbInt().nullable()).optional(),
  ...groupSettingParams(groupSettingValue),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/channels/create",
    auth: "user",
    params: createParams,
    handler: (params, ctx) => createChannel(ctx, { ...params, groupSettings: pickGroupSettings(params) }),
  }),
];

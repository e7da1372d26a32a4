/** Channels: listing, reading, changing, archiving, subscribers and topics. */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, json, pathInt, str } from "../params.ts";
import { groupSettingChange, groupSettingParams, pickGroupSettings, retentionDays } from "../stream-params.ts";
import { archiveStream, getStream, getStreamId, getStreams, getStreamTopics } from "../../actions/channels/streams.ts";
import { streamMembers } from "../../actions/channels/subscriptions.ts";
import { updateStreamSettings } from "../../actions/channels/update.ts";
import { getStreamEmailAddress } from "../../actions/channels/email-address.ts";
import { deleteTopic } from "../../actions/messages/delete-topic.ts";
import { REALM_SCALAR_DEFAULTS } from "../../permissions/realm-settings.ts";

const listParams = z.object({
  include_public: bool().default(true),
  include_web_public: bool().default(false),
  include_subscribed: bool().default(true),
  exclude_archived: bool().default(true),
  include_all: bool().default(false),
  include_all_active: bool().default(false),
  include_default: bool().default(false),
  include_owner_subscribed: bool().default(false),
});

const updateParams = z.object({
  stream_id: pathInt(),
  description: str().max(REALM_SCALAR_DEFAULTS.max_stream_description_length).optional(),
  new_name: str().optional(),
  is_private: bool().optional(),
  is_web_public: bool().optional(),
  history_public_to_subscribers: bool().optional(),
  message_retention_days: retentionDays().optional(),
  is_archived: bool().optional(),
  // FL 389: the channel's folder; null takes it out of its folder.
  folder_id: json(dbInt().nullable()).optional(),
  is_default_stream: bool().optional(),
  ...groupSettingParams(groupSettingChange),
});

const byId = z.object({ stream_id: pathInt() });

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/streams",
    auth: "user",
    params: listParams,
    // include_all_active is the older name of include_all (which returns every channel the caller can see).
    handler: async (params, ctx) => getStreams(ctx, { ...params, include_all: params.include_all || params.include_all_active }),
  }),
  defineEndpoint({
    method: "GET",
    path: "/streams/:stream_id",
    auth: "user",
    params: byId,
    handler: async (params, ctx) => getStream(ctx, params.stream_id),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/streams/:stream_id",
    auth: "user",
    params: updateParams,
    handler: async (params, ctx) => updateStreamSettings(ctx, params.stream_id, { ...params, groupSettings: pickGroupSettings(params) }),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/streams/:stream_id",
    auth: "user",
    params: byId,
    handler: async (params, ctx) => archiveStream(ctx, params.stream_id),
  }),
  defineEndpoint({
    method: "GET",
    path: "/streams/:stream_id/members",
    auth: "user",
    params: byId,
    handler: async (params, ctx) => streamMembers(ctx, params.stream_id),
  }),
  defineEndpoint({
    method: "POST",
    path: "/streams/:stream_id/delete_topic",
    auth: "user",
    params: z.object({ stream_id: pathInt(), topic_name: str() }),
    handler: async (params, ctx) => deleteTopic(ctx, params.stream_id, params),
  }),
  defineEndpoint({
    method: "GET",
    path: "/streams/:stream_id/email_address",
    auth: "user",
    params: z.object({ stream_id: pathInt(), sender_id: pathInt().optional() }),
    handler: async (params, ctx) => getStreamEmailAddress(ctx, params.stream_id, params),
  }),
  defineEndpoint({
    method: "GET",
    path: "/get_stream_id",
    auth: "user",
    params: z.object({ stream: str() }),
    handler: async (params, ctx) => getStreamId(ctx, params.stream),
  }),
  defineEndpoint({
    method: "GET",
    path: "/users/me/:stream_id/topics",
    auth: "user",
    params: byId,
    handler: async (params, ctx) => getStreamTopics(ctx, params.stream_id),
  }),
];

/** Channel folders (FL 389): list, create, update, reorder (FL 414). */
import { z } from "zod";
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolderSettings } from "../../actions/channels/folders.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, intList, pathInt, str } from "../params.ts";

/** Zulip's ChannelFolder.MAX_NAME_LENGTH and MAX_DESCRIPTION_LENGTH, in characters. */
const MAX_NAME_LENGTH = 60;
const MAX_DESCRIPTION_LENGTH = 1024;

const name = () => str().trim().max(MAX_NAME_LENGTH);
const description = () => str().trim().max(MAX_DESCRIPTION_LENGTH);

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/channel_folders",
    auth: "user",
    params: z.object({ include_archived: bool().default(false) }),
    handler: (p, ctx) => getChannelFolders(ctx, p),
  }),
  defineEndpoint({
    method: "POST",
    path: "/channel_folders/create",
    auth: "user",
    params: z.object({ name: name(), description: description().optional() }),
    handler: (p, ctx) => createChannelFolder(ctx, p),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/channel_folders",
    auth: "user",
    params: z.object({ order: intList() }),
    handler: (p, ctx) => reorderChannelFolders(ctx, p),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/channel_folders/:channel_folder_id",
    auth: "user",
    params: z.object({ channel_folder_id: pathInt(), name: name().optional(), description: description().optional(), is_archived: bool().optional() }),
    handler: ({ channel_folder_id, ...p }, ctx) => updateChannelFolderSettings(ctx, channel_folder_id, p),
  }),
];

/** Reading messages: GET /messages, GET /messages/matches_narrow, GET /messages/{message_id}. */
import { z } from "zod";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, int, intList, json, pathInt, str } from "../params.ts";
import { getMessages } from "../../actions/messages/read.ts";
import { getMessage } from "../../actions/messages/read-one.ts";
import { matchesNarrow } from "../../actions/messages/matches-narrow.ts";

/** A JSON-encoded narrow: a list whose terms the action validates (objects or legacy pairs). */
const narrowList = () => json(z.array(z.unknown()));

const getMessagesParams = z.object({
  anchor: str().optional(),
  include_anchor: bool().default(true),
  num_before: int({ min: 0 }).default(0),
  num_after: int({ min: 0 }).default(0),
  narrow: json(z.array(z.unknown()).nullable()).optional(),
  client_gravatar: bool().default(true),
  apply_markdown: bool().default(true),
  use_first_unread_anchor: bool().default(false),
  message_ids: json(z.array(dbInt().min(0))).optional(),
  allow_empty_topic_name: bool().default(false),
});

const matchesNarrowParams = z.object({
  msg_ids: intList(),
  narrow: narrowList(),
});

const getMessageParams = z.object({
  message_id: pathInt(),
  apply_markdown: bool().default(true),
  allow_empty_topic_name: bool().default(false),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/messages",
    auth: "user",
    params: getMessagesParams,
    handler: async (p, ctx) => getMessages(ctx, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/messages/matches_narrow",
    auth: "user",
    params: matchesNarrowParams,
    handler: async (p, ctx) => matchesNarrow(ctx, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/messages/:message_id",
    auth: "user",
    params: getMessageParams,
    handler: async (p, ctx) => getMessage(ctx, p),
  }),
];

/** Alert words: GET, POST and DELETE /users/me/alert_words. */
import { z } from "zod";
import { addAlertWords, listOwnAlertWords, removeAlertWords } from "../../actions/users/alert-words.ts";
import { defineEndpoint } from "../endpoint.ts";
import { json, str } from "../params.ts";

/** Zulip's MAX_ALERT_WORD_LENGTH, checked before the words are trimmed, as Zulip does. */
const MAX_ALERT_WORD_LENGTH = 100;

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/users/me/alert_words",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => ({ alert_words: await listOwnAlertWords(ctx) }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/me/alert_words",
    auth: "user",
    params: z.object({ alert_words: json(z.array(str().max(MAX_ALERT_WORD_LENGTH))) }),
    handler: async (params, ctx) => ({ alert_words: await addAlertWords(ctx, params) }),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/users/me/alert_words",
    auth: "user",
    params: z.object({ alert_words: json(z.array(str())) }),
    handler: async (params, ctx) => ({ alert_words: await removeAlertWords(ctx, params) }),
  }),
];

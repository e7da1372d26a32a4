/** Integrations' URLs (Zulip's zerver/webhooks): the generic JSON integration, POST /external/json. */
import { z } from "zod";
import { jsonWebhookContent, postWebhookMessage } from "../../actions/bots/incoming-webhook.ts";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";

/** What every integration URL takes besides its payload: the key (consumed by authentication) and where to post. */
const target = { api_key: str().optional(), stream: str().optional(), topic: str().optional() };

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/external/json",
    auth: "webhook",
    client: "ZulipJSONWebhook",
    nulChecked: ["topic"],
    params: z.object({ ...target, payload: z.unknown() }),
    handler: async ({ stream, topic, payload }, ctx) => {
      // The JSON integration names its topic "JSON" unless the URL gives one.
      await postWebhookMessage(ctx, { stream, topic }, "JSON", jsonWebhookContent(payload));
      return {};
    },
  }),
];

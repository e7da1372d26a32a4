/** The event system: POST /register, GET /events (long-poll) and DELETE /events. */
import { z } from "zod";
import { deleteQueue, getEvents } from "../../actions/queues/events.ts";
import { registerEventQueue } from "../../actions/queues/register.ts";
import { JsonText } from "../../events/pending-events.ts";
import { DeferredAnswer, defineEndpoint, JsonMembers } from "../endpoint.ts";
import { bool, int, json, str } from "../params.ts";

/** client_capabilities: notification_settings_null is required (as upstream); unknown keys are ignored. */
const clientCapabilities = z.object({
  notification_settings_null: z.boolean(),
  bulk_message_deletion: z.boolean().optional(),
  user_avatar_url_field_optional: z.boolean().optional(),
  stream_typing_notifications: z.boolean().optional(),
  user_settings_object: z.boolean().optional(),
  linkifier_url_template: z.boolean().optional(),
  user_list_incomplete: z.boolean().optional(),
  include_deactivated_groups: z.boolean().optional(),
  archived_channels: z.boolean().optional(),
  empty_topic_name: z.boolean().optional(),
  simplified_presence_events: z.boolean().optional(),
});

/** Options a queue is made with, shared by POST /register and GET /events without queue_id. */
const queueParams = {
  apply_markdown: bool().optional(),
  client_gravatar: json(z.boolean().nullable()).optional(),
  slim_presence: bool().optional(),
  all_public_streams: bool().optional(),
  // null means "all events" (zulip-js sends it), as Zulip's `Json[list[str]] | None`.
  event_types: json(z.array(z.string()).nullable()).optional(),
  narrow: json(z.array(z.array(z.string()).length(2)).nullable()).optional(),
};

const registerParams = z.object({
  ...queueParams,
  include_subscribers: z.enum(["true", "false", "partial"]).optional(),
  presence_history_limit_days: int().optional(),
  fetch_event_types: json(z.array(z.string()).nullable()).optional(),
  client_capabilities: json(clientCapabilities).optional(),
  queue_lifespan_secs: int({ min: 0 }).optional(),
});

/** GET /events takes the capabilities as top-level booleans when it makes the queue itself. */
const getEventsParams = z.object({
  ...queueParams,
  queue_id: str().optional(),
  last_event_id: int().optional(),
  dont_block: bool().optional(),
  lifespan_secs: int({ min: 0 }).optional(),
  bulk_message_deletion: bool().optional(),
  stream_typing_notifications: bool().optional(),
  user_settings_object: bool().optional(),
  linkifier_url_template: bool().optional(),
  user_list_incomplete: bool().optional(),
  include_deactivated_groups: bool().optional(),
  archived_channels: bool().optional(),
  empty_topic_name: bool().optional(),
  simplified_presence_events: bool().optional(),
});

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/register",
    auth: "optional",
    params: registerParams,
    handler: async (params, ctx, { queues }) => registerEventQueue(ctx, queues, params),
  }),
  defineEndpoint({
    method: "GET",
    path: "/events",
    auth: "user",
    params: getEventsParams,
    handler: async (params, ctx, { queues }) => {
      const { queue_id, last_event_id, dont_block, lifespan_secs, ...rest } = params;
      const { apply_markdown, client_gravatar, slim_presence, all_public_streams, event_types, narrow, ...capabilities } = rest;
      const newQueue = { apply_markdown, client_gravatar, slim_presence, all_public_streams, event_types, narrow, lifespan_secs, client_capabilities: capabilities };
      const input = { queue_id, last_event_id, dont_block: dont_block ?? false, newQueue };
      return new DeferredAnswer((send, fail) =>
        getEvents(ctx, queues, input, (answer) => {
          if (answer instanceof Error) return fail(answer);
          // Written from each event's shared text: a fan-out answers thousands of polls with the same events.
          send(() => {
            const members = new JsonText().ascii('"events":');
            answer.events.appendJson(members);
            return new JsonMembers(members.any(`,"queue_id":${JSON.stringify(answer.queue_id)}`));
          });
        }),
      );
    },
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/events",
    auth: "user",
    params: z.object({ queue_id: str() }),
    handler: async ({ queue_id }, ctx, { queues }) => {
      deleteQueue(ctx, queues, queue_id);
      return {};
    },
  }),
];

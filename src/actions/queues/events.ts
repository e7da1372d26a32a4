/**
 * Event queue options and the queue endpoints' actions: fetching events (GET /events, with
 * acknowledgement and long-polling) and deleting a queue (DELETE /events).
 */
import type { AuthedCtx, ActionCtx } from "../context.ts";
import { isGuest } from "../../permissions/check.ts";
import { unsupportedNarrowOperator, type NarrowTerm } from "../../events/narrow.ts";
import type { EventQueue } from "../../events/queue.ts";
import type { QueueManager } from "../../events/queue-manager.ts";
import type { PendingEvents } from "../../events/pending-events.ts";
import { BadEventQueueIdError, JsonableError } from "../../errors.ts";
import type { ClientCapabilities, QueueOptions } from "../../events/queue-options.ts";

/** Queue options as a client sends them; absent values take Zulip's defaults. */
export type QueueOptionsInput = {
  apply_markdown?: boolean;
  client_gravatar?: boolean | null;
  include_subscribers?: QueueOptions["include_subscribers"];
  slim_presence?: boolean;
  presence_history_limit_days?: number;
  all_public_streams?: boolean;
  narrow?: string[][] | null;
  /** null (or absent): all event types. */
  event_types?: string[] | null;
  fetch_event_types?: string[] | null;
  client_capabilities?: Partial<ClientCapabilities>;
};

const NO_CAPABILITIES: ClientCapabilities = {
  notification_settings_null: false,
  bulk_message_deletion: false,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: false,
  user_settings_object: false,
  linkifier_url_template: false,
  user_list_incomplete: false,
  include_deactivated_groups: false,
  archived_channels: false,
  empty_topic_name: false,
  simplified_presence_events: false,
};

/** The declared capabilities over the defaults (undeclared ones stay false). */
function withCapabilities(declared: Partial<ClientCapabilities>): ClientCapabilities {
  return { ...NO_CAPABILITIES, ...Object.fromEntries(Object.entries(declared).filter(([, value]) => value !== undefined)) };
}

function narrowTerms(narrow: string[][]): NarrowTerm[] {
  return narrow.map(([operator, operand]) => [operator, operand]);
}

/**
 * Applies defaults and checks what the parameter schema cannot: the narrow's operators and, for
 * guests, all_public_streams. client_gravatar defaults to true only for authenticated clients.
 */
export function queueOptions(ctx: ActionCtx, input: QueueOptionsInput): QueueOptions {
  const narrow = narrowTerms(input.narrow ?? []);
  const unsupported = unsupportedNarrowOperator(narrow);
  if (unsupported !== null) throw new JsonableError(`Operator ${unsupported} not supported.`);
  if (input.all_public_streams && ctx.actor && isGuest(ctx.actor)) throw new JsonableError("User not authorized for this query");
  return {
    apply_markdown: input.apply_markdown ?? false,
    client_gravatar: input.client_gravatar ?? ctx.actor !== null,
    include_subscribers: input.include_subscribers ?? "false",
    slim_presence: input.slim_presence ?? false,
    presence_history_limit_days: input.presence_history_limit_days ?? null,
    all_public_streams: ctx.actor !== null && (input.all_public_streams ?? false),
    narrow,
    capabilities: withCapabilities(input.client_capabilities ?? {}),
    event_types: input.event_types ?? null,
    fetch_event_types: input.fetch_event_types ?? input.event_types ?? null,
  };
}

function ownQueue(ctx: AuthedCtx, queues: QueueManager, queueId: string): EventQueue {
  const queue = queues.find(queueId, ctx.actor.id);
  if (!queue) throw new BadEventQueueIdError(queueId);
  return queue;
}

/** GET /events input: an existing queue, or (with dont_block) options for a new one. */
type GetEventsInput = {
  queue_id?: string;
  last_event_id?: number;
  dont_block: boolean;
  newQueue: QueueOptionsInput & { lifespan_secs?: number };
};

/** Acknowledges `last_event_id` as Zulip does, refusing to go back or to skip ahead. */
function acknowledge(queue: EventQueue, lastEventId: number | undefined): void {
  if (lastEventId === undefined) throw new JsonableError("Missing 'last_event_id' argument");
  const result = queue.acknowledge(lastEventId);
  if (result === "already_pruned") throw new JsonableError(`An event newer than ${lastEventId} has already been pruned!`);
  if (result === "not_in_queue") throw new JsonableError(`Event ${lastEventId} was not in this queue`);
}

/** What GET /events answers: the queue's pending events and its id. */
export type EventsAnswer = { events: PendingEvents; queue_id: string };

/**
 * The queue's events after `last_event_id`, waiting for some unless `dont_block`. Without a
 * queue_id and with dont_block, makes a queue from the given options (its id is in the reply).
 * Input errors throw here; the answer, or the error of a queue deleted while its poll waited,
 * goes to `reply` later (a long poll's answer is written from inside the delivery that wakes
 * it: events/long-poll.ts), which must not throw.
 */
export function getEvents(ctx: AuthedCtx, queues: QueueManager, input: GetEventsInput, reply: (answer: EventsAnswer | BadEventQueueIdError) => void): void {
  let queue: EventQueue;
  if (input.queue_id === undefined) {
    if (!input.dont_block) throw new JsonableError("Missing 'queue_id' argument");
    const options = queueOptions(ctx, input.newQueue);
    queue = queues.create({ realmId: ctx.realm.id, userId: ctx.actor.id, options, lifespanSeconds: input.newQueue.lifespan_secs });
  } else {
    queue = ownQueue(ctx, queues, input.queue_id);
    acknowledge(queue, input.last_event_id);
  }
  // Zulip names the queue in long-poll answers and for queues made here; always naming it is simplest.
  queues.nextEvents(queue, input.dont_block, (events) => reply(events === null ? new BadEventQueueIdError(queue.id) : { events, queue_id: queue.id }));
}

/** DELETE /events: drops one of the caller's queues. */
export function deleteQueue(ctx: AuthedCtx, queues: QueueManager, queueId: string): void {
  queues.delete(ownQueue(ctx, queues, queueId));
}

/**
 * POST /register: makes the caller's event queue, then composes the initial state from the
 * state providers. The queue exists before any state is read, so an event committed while the
 * snapshot is built is in the queue (it may also already show in the snapshot).
 */
import type { ActionCtx } from "../context.ts";
import { queueOptions, type QueueOptionsInput } from "./events.ts";
import { JsonableError, UnauthorizedError } from "../../errors.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { QUERYING_PROVIDERS, STATE_PROVIDERS } from "../../register/index.ts";
import type { StateProvider } from "../../register/provider.ts";
import type { QueueOptions } from "../../events/queue-options.ts";
import type { QueueManager } from "../../events/queue-manager.ts";
import { settleUnreads } from "../messages/unread-settle.ts";
import { FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../../version.ts";

/** POST /register's parameters. */
type RegisterInput = QueueOptionsInput & { queue_lifespan_secs?: number };

/** No event has been queued yet: the first GET /events passes this as last_event_id. */
const INITIAL_LAST_EVENT_ID = -1;

/**
 * Unauthenticated register is for realms with public access (FL 149: client_gravatar and
 * include_subscribers must then not be true).
 */
function checkSpectator(ctx: ActionCtx, input: RegisterInput): void {
  if (!realmSettings(ctx.realm).enable_spectator_access) throw new UnauthorizedError();
  if (input.client_gravatar === true) throw new JsonableError("Invalid 'client_gravatar' parameter for anonymous request");
  if (input.include_subscribers !== undefined && input.include_subscribers !== "false") {
    throw new JsonableError("Invalid 'include_subscribers' parameter for anonymous request");
  }
}

/** The providers in the order they start: the querying ones first (see composeSnapshot). */
const START_ORDER: readonly StateProvider[] = [
  ...STATE_PROVIDERS.filter((provider) => QUERYING_PROVIDERS.has(provider)),
  ...STATE_PROVIDERS.filter((provider) => !QUERYING_PROVIDERS.has(provider)),
];

/** Resolves on a later turn of the event loop, after the work queued on this one (see composeSnapshot). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Every provider's part of the snapshot for what the client wants, merged in STATE_PROVIDERS'
 * order. Each provider starts on a turn of its own, those that query first: a provider whose
 * reads the read cache answers presents them in one run of promise continuations, and
 * PostgreSQL's pool hands out connections only once such a run ends, so started together, the
 * querying providers' statements waited for all of that presenting (12 ms of a 30 ms register
 * here) instead of running beside it.
 */
async function composeSnapshot(ctx: ActionCtx, queues: QueueManager, options: QueueOptions): Promise<Record<string, unknown>> {
  // The one property first: properties after a spread take V8's slow path (see actions/context.ts).
  const snapshotCtx = { queues, ...ctx };
  const wanted = options.fetch_event_types === null ? null : new Set(options.fetch_event_types);
  const want = (eventType: string) => wanted === null || wanted.has(eventType);
  const started = new Map<StateProvider, Promise<Record<string, unknown>>>();
  for (const provider of START_ORDER) {
    started.set(provider, nextTurn().then(() => provider.fetch(snapshotCtx, options, want)));
  }
  const parts = await Promise.all(STATE_PROVIDERS.map((provider) => started.get(provider)));
  return Object.assign({}, ...parts);
}

/** Whether the snapshot holds unread_msgs (see register/messages.ts). */
function wantsUnreads(options: QueueOptions): boolean {
  const wanted = options.fetch_event_types;
  return wanted === null || (wanted.includes("message") && wanted.includes("update_message_flags"));
}

/** Registers a queue (none for spectators) and returns it with the initial state. */
export async function registerEventQueue(ctx: ActionCtx, queues: QueueManager, input: RegisterInput): Promise<Record<string, unknown>> {
  if (!ctx.actor) checkSpectator(ctx, input);
  const options = queueOptions(ctx, input);
  const queue = ctx.actor
    ? queues.create({ realmId: ctx.realm.id, userId: ctx.actor.id, options, lifespanSeconds: input.queue_lifespan_secs })
    : null;
  let state: Record<string, unknown>;
  try {
    if (ctx.actor && wantsUnreads(options)) await settleUnreads(ctx, ctx.actor.id);
    state = await composeSnapshot(ctx, queues, options);
  } catch (err) {
    if (queue) queues.delete(queue);
    throw err;
  }
  const settings = realmSettings(ctx.realm);
  return {
    ...state,
    queue_id: queue?.id ?? null,
    last_event_id: INITIAL_LAST_EVENT_ID,
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: FEATURE_LEVEL,
    zulip_merge_base: ZULIP_MERGE_BASE,
    service_version: ZULIP_VERSION,
    service_feature_level: FEATURE_LEVEL,
    max_message_length: settings.max_message_length,
    max_topic_length: settings.max_topic_length,
  };
}

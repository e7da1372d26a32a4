/** Register a queue, act, poll: the shape of every event test. */
import assert from "node:assert/strict";
import type { ApiClient, Credentials, Params } from "./client.ts";
import { expectSuccess } from "./client.ts";

export type Queue = { queueId: string; lastEventId: number; state: Record<string, unknown>; user: Credentials };

/** POST /register for `user` with the given parameters (JSON-encoded as clients do). */
export async function registerQueue(api: ApiClient, user: Credentials, params: Params = {}): Promise<Queue> {
  const body = expectSuccess(await api.post(user, "/register", params));
  assert.equal(typeof body.queue_id, "string");
  return { queueId: body.queue_id, lastEventId: body.last_event_id, state: body, user };
}

/**
 * Fetches the queue's pending events without blocking (GET /events, dont_block=true),
 * acknowledging what was seen before; heartbeats are dropped. The client helper validates the
 * whole response, every event included, against zulip-openapi.yaml.
 */
export async function pollEvents(api: ApiClient, queue: Queue): Promise<Array<Record<string, unknown>>> {
  const body = expectSuccess(
    await api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }),
  );
  const events = body.events as Array<Record<string, unknown> & { id: number }>;
  if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
  return events.filter((e) => e.type !== "heartbeat");
}

/** Events without their queue-assigned `id`, for exact comparison. */
export function withoutIds(events: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return events.map(({ id: _id, ...rest }) => rest);
}

/**
 * Register a queue, act, poll: the shape of every event test. Register responses and events are
 * checked against zulip-openapi.yaml (test/helpers/openapi.ts handles fields newer than it).
 */
import assert from "node:assert/strict";
import type { ApiClient, ApiResponse, Credentials, Params, RequestOptions } from "./client.ts";
import { expectSuccess } from "./client.ts";

export type Queue = { queueId: string; lastEventId: number; state: Record<string, unknown>; user: Credentials };

/** POST /register as `user` (null: unauthenticated); a success body is checked against the OpenAPI file. */
export async function postRegister(api: ApiClient, user: Credentials | null, params: Params = {}, opts: RequestOptions = {}): Promise<ApiResponse> {
  return api.post(user, "/register", params, opts);
}

/** GET /events; a success body's events are checked against the OpenAPI file. */
export async function getEvents(api: ApiClient, user: Credentials | null, params: Params): Promise<ApiResponse> {
  const res = await api.get(user, "/events", params);
  if (res.status === 200) assert.ok(Array.isArray(res.body.events), "events is a list");
  return res;
}

/** POST /register for `user` with the given parameters (JSON-encoded as clients do). */
export async function registerQueue(api: ApiClient, user: Credentials, params: Params = {}): Promise<Queue> {
  const body = expectSuccess(await postRegister(api, user, params));
  assert.equal(typeof body.queue_id, "string");
  return { queueId: body.queue_id, lastEventId: body.last_event_id, state: body, user };
}

/**
 * Fetches the queue's pending events without blocking (GET /events, dont_block=true),
 * acknowledging what was seen before; heartbeats are dropped. Every event is checked against
 * zulip-openapi.yaml.
 */
export async function pollEvents(api: ApiClient, queue: Queue): Promise<Array<Record<string, unknown>>> {
  const body = expectSuccess(await getEvents(api, queue.user, { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }));
  const events = body.events as Array<Record<string, unknown> & { id: number }>;
  if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
  return events.filter((e) => e.type !== "heartbeat");
}

/** Events without their queue-assigned `id`, for exact comparison. */
export function withoutIds(events: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return events.map(({ id: _id, ...rest }) => rest);
}

/** Every message id of a register snapshot's `unread_msgs` (channels, direct and group conversations), ascending. */
export function unreadMessageIds(unreadMsgs: Record<string, any>): number[] {
  return [...unreadMsgs.streams, ...unreadMsgs.pms, ...unreadMsgs.huddles].flatMap((c: { unread_message_ids: number[] }) => c.unread_message_ids).sort((a: number, b: number) => a - b);
}

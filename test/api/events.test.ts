/** GET /events and DELETE /events: polling, acknowledgement, long-poll, heartbeats, collection. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { getEvents, registerQueue } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

/** BAD_EVENT_QUEUE_ID, with the queue_id field upstream adds. */
function expectBadQueue(res: { status: number; body: Record<string, unknown> }, queueId: string): void {
  expectError(res as never, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`);
  assert.equal(res.body.queue_id, queueId);
}

describeEachStore("event queues", (server) => {
  test("a new queue is empty: dont_block returns no events and last_event_id -1 acknowledges nothing", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member);
    assert.match(queue.queueId, /^\d+:[0-9a-f]+$/);
    assert.equal(queue.lastEventId, -1);
    const body = expectSuccess(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: -1, dont_block: true }));
    assert.deepEqual(body.events, []);
    assert.equal(body.queue_id, queue.queueId);
  });

  test("no credentials or bad credentials: 401 UNAUTHORIZED", async () => {
    const queue = await registerQueue(server.api, server.fixtures.member);
    const params = { queue_id: queue.queueId, last_event_id: -1, dont_block: true };
    const msg = NO_AUTH;
    expectError(await server.api.get(null, "/events", params), "UNAUTHORIZED", msg, 401);
    expectError(await server.api.delete(null, "/events", { queue_id: queue.queueId }), "UNAUTHORIZED", msg, 401);
    const wrong = { email: server.fixtures.member.email, apiKey: "not-the-key" };
    expectError(await server.api.get(wrong, "/events", params), "UNAUTHORIZED", "Invalid API key", 401);
    // The queue is untouched.
    expectSuccess(await getEvents(server.api, server.fixtures.member, params));
  });

  test("a waiting poll gets a heartbeat once the heartbeat interval passes", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member);
    const poll = getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: -1 });
    await server.advanceClock(60);
    const body = expectSuccess(await poll);
    assert.deepEqual(body.events, [{ type: "heartbeat", id: 0 }]);
    // Acknowledged, the heartbeat is gone.
    const next = expectSuccess(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: 0, dont_block: true }));
    assert.deepEqual(next.events, []);
  });

  test("a waiting poll returns when an event arrives; event_types filter what a queue receives", async () => {
    const { member, admin } = server.fixtures;
    const users = await registerQueue(server.api, member, { event_types: ["realm_user"] });
    const channels = await registerQueue(server.api, member, { event_types: ["stream"] });
    const poll = getEvents(server.api, member, { queue_id: users.queueId, last_event_id: -1 });
    expectSuccess(await server.api.post(admin, "/users", { email: "newcomer@example.com", password: "pw-123456789", full_name: "New Comer" }));
    const body = expectSuccess(await poll);
    const added = body.events.filter((e: Record<string, unknown>) => e.type === "realm_user");
    assert.equal(added.length, 1);
    assert.equal(added[0].op, "add");
    assert.equal(added[0].person.full_name, "New Comer");
    const other = expectSuccess(await getEvents(server.api, member, { queue_id: channels.queueId, last_event_id: -1, dont_block: true }));
    assert.deepEqual(other.events, []);
  });

  test("last_event_id must not go back past a dropped event nor name an event the queue never had", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member);
    const params = { queue_id: queue.queueId, dont_block: true };
    expectError(await getEvents(server.api, member, { ...params, last_event_id: 3 }), "BAD_REQUEST", "Event 3 was not in this queue");
    await server.advanceClock(60);
    const beat = expectSuccess(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: -1 }));
    assert.deepEqual(beat.events, [{ type: "heartbeat", id: 0 }]);
    expectSuccess(await getEvents(server.api, member, { ...params, last_event_id: 0 }));
    expectError(await getEvents(server.api, member, { ...params, last_event_id: -1 }), "BAD_REQUEST", "An event newer than -1 has already been pruned!");
    expectError(await getEvents(server.api, member, params), "BAD_REQUEST", "Missing 'last_event_id' argument");
    expectError(await getEvents(server.api, member, { ...params, last_event_id: "x" }), "BAD_REQUEST", "last_event_id is not an integer");
    expectError(await getEvents(server.api, member, { ...params, dont_block: "maybe" }), "BAD_REQUEST", "dont_block is not a boolean");
  });

  test("an unknown queue, or another user's, is BAD_EVENT_QUEUE_ID with the queue_id field", async () => {
    const { member, admin } = server.fixtures;
    expectBadQueue(await getEvents(server.api, member, { queue_id: "1:nope", last_event_id: -1, dont_block: true }), "1:nope");
    const queue = await registerQueue(server.api, member);
    expectBadQueue(await getEvents(server.api, admin, { queue_id: queue.queueId, last_event_id: -1, dont_block: true }), queue.queueId);
    expectBadQueue(await server.api.delete(admin, "/events", { queue_id: queue.queueId }), queue.queueId);
    // Still there for its owner.
    expectSuccess(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: -1, dont_block: true }));
  });

  test("a queue idle for 10 minutes is collected; polling keeps a queue alive", async () => {
    const { member } = server.fixtures;
    const idle = await registerQueue(server.api, member);
    const used = await registerQueue(server.api, member);
    const long = await registerQueue(server.api, member, { queue_lifespan_secs: 3600 });
    await server.advanceClock(300);
    expectSuccess(await getEvents(server.api, member, { queue_id: used.queueId, last_event_id: -1, dont_block: true }));
    await server.advanceClock(300);
    expectBadQueue(await getEvents(server.api, member, { queue_id: idle.queueId, last_event_id: -1, dont_block: true }), idle.queueId);
    expectSuccess(await getEvents(server.api, member, { queue_id: used.queueId, last_event_id: -1, dont_block: true }));
    expectSuccess(await getEvents(server.api, member, { queue_id: long.queueId, last_event_id: -1, dont_block: true }));
    await server.advanceClock(600);
    expectBadQueue(await getEvents(server.api, member, { queue_id: used.queueId, last_event_id: -1, dont_block: true }), used.queueId);
  });

  test("DELETE /events drops the queue; a second delete is BAD_EVENT_QUEUE_ID", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member);
    expectSuccess(await server.api.delete(member, "/events", { queue_id: queue.queueId }, { encoding: "query" }));
    expectBadQueue(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: -1, dont_block: true }), queue.queueId);
    expectBadQueue(await server.api.delete(member, "/events", { queue_id: queue.queueId }), queue.queueId);
    expectError(await server.api.delete(member, "/events", {}), "REQUEST_VARIABLE_MISSING", "Missing 'queue_id' argument");
  });

  test("GET /events without queue_id makes a queue when dont_block is set", async () => {
    const { member } = server.fixtures;
    expectError(await getEvents(server.api, member, { last_event_id: -1 }), "BAD_REQUEST", "Missing 'queue_id' argument");
    const body = expectSuccess(await getEvents(server.api, member, { dont_block: true, event_types: ["heartbeat"], user_settings_object: true }));
    assert.deepEqual(body.events, []);
    assert.equal(typeof body.queue_id, "string");
    expectSuccess(await getEvents(server.api, member, { queue_id: body.queue_id, last_event_id: -1, dont_block: true }));
    expectError(await getEvents(server.api, member, { dont_block: true, narrow: [["search", "x"]] }), "BAD_REQUEST", "Operator search not supported.");
  });
});

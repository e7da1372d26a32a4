/** The event queue manager driven directly: delivery, filtering, adaptation, long-poll, heartbeats, GC. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { unsupportedNarrowOperator } from "../../src/events/narrow.ts";
import { QueueManager } from "../../src/events/queue-manager.ts";
import type { EventQueue } from "../../src/events/queue.ts";
import type { ApiEvent, QueuedEvent } from "../../src/events/types.ts";
import { queueOptions } from "../helpers/queue-options.ts";

const REALM = 1;
const config = loadConfig({ PORT: "9991" });

const options = queueOptions;

/** An event outside the ApiEvent union (unknown type, partial payload): queues pass it on as given. */
const loose = (event: object): ApiEvent => event as ApiEvent;

function streamMessage(stream: string, topic: string, flags: string[] = []): ApiEvent {
  return loose({ type: "message", flags, message: { type: "stream", display_recipient: stream, subject: topic, sender_email: "a@example.com" } });
}

const dmMessage = { type: "message", flags: ["read"], message: { type: "private", display_recipient: [], subject: "", sender_email: "b@example.com" } };

describe("QueueManager", () => {
  let clock: ManualClock;
  let manager: QueueManager;
  const make = (userId: number, opts = options(), lifespanSeconds?: number) => manager.create({ realmId: REALM, userId, options: opts, lifespanSeconds });
  /** nextEvents, its answer as the list a client receives (null: the queue was deleted while waiting). */
  const next = (queue: EventQueue, dontBlock = false) =>
    new Promise<QueuedEvent[] | null>((resolve) => manager.nextEvents(queue, dontBlock, (events) => resolve(events?.toArray() ?? null)));
  const pending = async (queue: EventQueue) => (await next(queue, true)) ?? [];

  beforeEach(() => {
    clock = new ManualClock();
    manager = new QueueManager(clock, config);
  });
  afterEach(() => manager.close());

  test("queue ids name the process; a queue belongs to its user", () => {
    const queue = make(7);
    assert.match(queue.id, /^9991:[0-9a-f]{16}$/);
    assert.equal(manager.find(queue.id, 7), queue);
    assert.equal(manager.find(queue.id, 8), undefined);
    assert.equal(manager.find("9991:nope", 7), undefined);
  });

  test("PROCESS_ID names the queues instead of the port", () => {
    const named = new QueueManager(clock, loadConfig({ PORT: "9991", PROCESS_ID: "east-1" }));
    try {
      assert.match(named.create({ realmId: REALM, userId: 7, options: options() }).id, /^east-1:[0-9a-f]{16}$/);
    } finally {
      named.close();
    }
    assert.throws(() => loadConfig({ PROCESS_ID: "a:b" }), /PROCESS_ID must be/);
  });

  test("holders of message queues: told once per user as the first such queue comes and the last goes", () => {
    const told: [number, boolean][] = [];
    manager.onHolderChange = (userId, holds) => told.push([userId, holds]);
    const first = make(1);
    const second = make(1, options({ event_types: ["message", "realm_user"] }));
    const presenceOnly = make(2, options({ event_types: ["presence"] }));
    assert.deepEqual(told, [[1, true]]);
    assert.deepEqual(manager.messageQueueHolders(), [1]);
    manager.delete(first);
    manager.delete(presenceOnly);
    assert.deepEqual(told, [[1, true]], "user 1 still holds one; user 2 never held one");
    manager.delete(second);
    manager.delete(second);
    assert.deepEqual(told, [[1, true], [1, false]], "a queue deleted twice is told once");
    assert.deepEqual(manager.messageQueueHolders(), []);
  });

  test("deliver appends to every queue of the target users, with increasing ids per queue", async () => {
    const a1 = make(1);
    const a2 = make(1);
    const b = make(2);
    const c = make(3);
    manager.deliver({ realmId: REALM, event: loose({ type: "custom", op: "x" }), userIds: [1, 2] });
    manager.deliver({ realmId: REALM, event: loose({ type: "custom", op: "y" }), userIds: [1] });
    manager.deliver({ realmId: REALM + 1, event: loose({ type: "custom", op: "other realm" }), userIds: [1] });
    assert.deepEqual(await pending(a1), [{ type: "custom", op: "x", id: 0 }, { type: "custom", op: "y", id: 1 }]);
    assert.deepEqual(await pending(a2), [{ type: "custom", op: "x", id: 0 }, { type: "custom", op: "y", id: 1 }]);
    assert.deepEqual(await pending(b), [{ type: "custom", op: "x", id: 0 }]);
    assert.deepEqual(await pending(c), []);
  });

  test("event_types limits what a queue receives", async () => {
    const queue = make(1, options({ event_types: ["realm_user"] }));
    manager.deliver({ realmId: REALM, event: loose({ type: "stream", op: "create" }), userIds: [1] });
    manager.deliver({ realmId: REALM, event: loose({ type: "realm_user", op: "add" }), userIds: [1] });
    assert.deepEqual(await pending(queue), [{ type: "realm_user", op: "add", id: 0 }]);
  });

  test("a narrow filters message events only, by channel, topic, sender and is:", async () => {
    const channel = make(1, options({ narrow: [["stream", "Denmark"], ["topic", "Castle"]] }));
    const dms = make(1, options({ narrow: [["is", "dm"]] }));
    const starred = make(1, options({ narrow: [["is", "starred"]] }));
    const unread = make(1, options({ narrow: [["is", "unread"]] }));
    const sender = make(1, options({ narrow: [["sender", "A@example.com"]] }));
    for (const event of [streamMessage("denmark", "castle"), streamMessage("Denmark", "other"), dmMessage, streamMessage("x", "y", ["starred", "read"]), { type: "stream", op: "create" }]) {
      manager.deliver({ realmId: REALM, event: loose(event), userIds: [1] });
    }
    const topics = async (q: EventQueue) => (await pending(q)).map((e) => ("message" in e ? JSON.stringify(e.message) : e.type));
    assert.equal((await pending(channel)).length, 2); // the matching message and the stream event
    assert.deepEqual(await topics(dms), [JSON.stringify(dmMessage.message), "stream"]);
    assert.equal((await pending(starred)).length, 2);
    assert.equal((await pending(unread)).length, 3); // two unread channel messages and the stream event
    assert.equal((await pending(sender)).length, 4);
    assert.equal(unsupportedNarrowOperator([["stream", "a"], ["search", "b"]]), "search");
    assert.equal(unsupportedNarrowOperator([["channel", "a"], ["is", "dm"]]), null);
  });

  test("adapters: linkifiers, legacy settings events, bulk deletion, deactivated groups", async () => {
    const old = make(1);
    const modern = make(1, options({}, { linkifier_url_template: true, user_settings_object: true, bulk_message_deletion: true, include_deactivated_groups: true }));
    const events: ApiEvent[] = [
      { type: "realm_linkifiers", realm_linkifiers: [] },
      { type: "update_display_settings", setting_name: "emojiset", setting: "text", user: "a@example.com" },
      { type: "delete_message", message_type: "private", message_ids: [5, 6] },
      { type: "user_group", op: "update", group_id: 9, data: { deactivated: true } },
    ];
    for (const event of events) manager.deliver({ realmId: REALM, event, userIds: [1] });
    const strip = (list: Array<Record<string, unknown>>) => list.map(({ id: _id, ...rest }) => rest);
    assert.deepEqual(strip(await pending(old)), [
      events[1],
      { type: "delete_message", message_type: "private", message_id: 5 },
      { type: "delete_message", message_type: "private", message_id: 6 },
      { type: "user_group", op: "remove", group_id: 9 },
    ]);
    assert.deepEqual(strip(await pending(modern)), [events[0], events[2], events[3]]);
  });

  test("all_public_streams queues get deliveries marked for them", async () => {
    const watcher = make(5, options({ all_public_streams: true }));
    const plain = make(6);
    manager.deliver({ realmId: REALM, event: streamMessage("a", "b"), userIds: [1], allPublicStreamsQueues: true });
    assert.equal((await pending(watcher)).length, 1);
    assert.equal((await pending(plain)).length, 0);
  });

  test("acknowledging drops events; going back or skipping ahead is refused", () => {
    const queue = make(1);
    for (let i = 0; i < 3; i++) manager.deliver({ realmId: REALM, event: loose({ type: "custom", n: i }), userIds: [1] });
    assert.equal(queue.acknowledge(-1), "ok");
    assert.equal(queue.acknowledge(1), "ok");
    assert.deepEqual(queue.contents().map((e) => e.id), [2]);
    assert.equal(queue.acknowledge(0), "already_pruned");
    assert.equal(queue.acknowledge(7), "not_in_queue");
    assert.deepEqual(queue.contents(), []);
  });

  test("a waiting poll returns when an event arrives", async () => {
    const queue = make(1);
    const poll = next(queue);
    manager.deliver({ realmId: REALM, event: loose({ type: "custom" }), userIds: [1] });
    assert.deepEqual(await poll, [{ type: "custom", id: 0 }]);
  });

  test("a delivery answers each waiting poll before it returns, every event of the delivery included", () => {
    const queues = [make(1), make(1), make(2)];
    const answered: string[][] = [];
    for (const queue of queues) manager.nextEvents(queue, false, (events) => answered.push(events?.toArray().map((e) => `${e.type}:${e.id}`) ?? ["deleted"]));
    assert.deepEqual(answered, [], "an empty queue's poll waits");
    // bulk_message_deletion off: one delivery becomes two events, and the poll gets both.
    manager.deliver({ realmId: REALM, event: loose({ type: "delete_message", message_ids: [5, 6], message_type: "stream" }), userIds: [1, 2] });
    assert.deepEqual(answered, [
      ["delete_message:0", "delete_message:1"],
      ["delete_message:0", "delete_message:1"],
      ["delete_message:0", "delete_message:1"],
    ]);
  });

  test("answerAfterTurn (processes sharing a bus): a delivery queues its events at once and answers the polls it woke at the turn's end, with every event of the turn", async () => {
    const shared = new QueueManager(clock, config, { answerAfterTurn: true });
    try {
      const waiting = shared.create({ realmId: REALM, userId: 1, options: options() });
      const idle = shared.create({ realmId: REALM, userId: 1, options: options() });
      const answered: string[][] = [];
      shared.nextEvents(waiting, false, (events) => answered.push(events?.toArray().map((e) => `${e.type}:${e.id}`) ?? ["deleted"]));
      shared.deliver({ realmId: REALM, event: loose({ type: "custom", op: "a" }), userIds: [1] });
      shared.deliver({ realmId: REALM, event: loose({ type: "custom", op: "b" }), userIds: [1] });
      assert.deepEqual(answered, [], "not answered inside the delivery");
      // A request in the same turn (not blocking) already sees what was delivered.
      const seen: string[] = [];
      shared.nextEvents(idle, true, (events) => seen.push(...(events?.toArray().map((e) => `${e.type}:${e.id}`) ?? [])));
      assert.deepEqual(seen, ["custom:0", "custom:1"]);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(answered, [["custom:0", "custom:1"]]);
    } finally {
      shared.close();
    }
  });

  test("a waiting poll gets a heartbeat after the heartbeat interval, not before", async () => {
    const queue = make(1);
    const poll = next(queue);
    let done = false;
    void poll.then(() => (done = true));
    clock.advance(59_000);
    await Promise.resolve();
    assert.equal(done, false);
    clock.advance(1_000);
    assert.deepEqual(await poll, [{ type: "heartbeat", id: 0 }]);
  });

  test("a client back after the heartbeat interval with nothing pending gets a heartbeat at once", async () => {
    const queue = make(1);
    clock.advance(61_000);
    assert.deepEqual(await next(queue), [{ type: "heartbeat", id: 0 }]);
  });

  test("a newer poll releases the older one", async () => {
    const queue = make(1);
    const first = next(queue);
    const second = next(queue);
    assert.deepEqual(await first, []);
    manager.deliver({ realmId: REALM, event: loose({ type: "custom" }), userIds: [1] });
    assert.deepEqual(await second, [{ type: "custom", id: 0 }]);
  });

  test("idle queues are collected after the idle time; waited-on queues are not", async () => {
    const idle = make(1);
    const busy = make(2);
    const longLived = make(3, options(), 3600);
    const poll = next(busy);
    clock.advance(599_000);
    assert.ok(manager.find(idle.id, 1));
    clock.advance(61_000); // heartbeats the busy poll (answered: touched) and sweeps
    assert.equal(manager.find(idle.id, 1), undefined);
    assert.ok(manager.find(busy.id, 2));
    assert.ok(manager.find(longLived.id, 3));
    assert.equal((await poll)?.[0]?.type, "heartbeat");
  });

  test("deleting a queue releases its waiting poll with nothing", async () => {
    const queue = make(1);
    const poll = next(queue);
    manager.delete(queue);
    assert.equal(await poll, null);
    assert.equal(manager.size, 0);
  });
});

/**
 * GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id}; `scheduled_messages` events
 * and the register key; delivery at the time (the test clock), at start for messages that came
 * due while no server ran, once only with two processes, and upstream's failure handling.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, withDb } from "../helpers/db.ts";
import { getEvents, pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { startServerOnStore, type TestServer } from "../helpers/server.ts";
import { createUser } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const NOT_FOUND = "Scheduled message does not exist";
const IN_PAST = "Scheduled delivery time must be in the future.";
/** A queue lifespan longer than the clock jumps of these tests (idle queues are collected after 10 minutes). */
const LONG_LIVED = 86_400;

type Event = Record<string, unknown> & { id: number; type: string };

/** The server's clock, in whole seconds (it stands still until a test advances it). */
async function serverSeconds(server: TestServer): Promise<number> {
  const body = expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds: 0 }, { validate: false }));
  return Math.floor(body.now_ms / 1000);
}

/** Long-polls the queue until `done` holds for the events received so far (heartbeats dropped). */
async function eventsUntil(server: TestServer, queue: Queue, done: (events: Event[]) => boolean): Promise<Event[]> {
  const got: Event[] = [];
  while (!done(got)) {
    const body = expectSuccess(await getEvents(server.api, queue.user, { queue_id: queue.queueId, last_event_id: queue.lastEventId }));
    const events = body.events as Event[];
    if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
    got.push(...events.filter((e) => e.type !== "heartbeat"));
  }
  return got;
}

const isMessage = (content: string) => (e: Event) => e.type === "message" && (e.message as { content: string }).content === content;

describeEachStore("scheduled messages", { timeout: 300_000 }, (server) => {
  let generalId: number;
  const schedule = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/scheduled_messages", params);
  const list = async (user: Credentials) => expectSuccess(await server.api.get(user, "/scheduled_messages")).scheduled_messages;
  const storedRow = (id: number) => withDb(server, (db) => db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow());
  const messagesWith = (content: string) => withDb(server, (db) => db.selectFrom("messages").select(["id", "sender_id"]).where("content", "=", content).execute());

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
  });

  // First, while this server's clock still reads its start time: a second process started later
  // finds the first message already due.
  test("due while no server ran: sent at start; two processes racing send it once", async () => {
    const { member, moderator } = server.fixtures;
    const now = await serverSeconds(server);
    const atStart = expectSuccess(await schedule(member, { type: "channel", to: generalId, topic: "restart", content: "sent at start", scheduled_delivery_timestamp: now + 1 })).scheduled_message_id;
    const raced = expectSuccess(await schedule(member, { type: "direct", to: [moderator.id], content: "raced", scheduled_delivery_timestamp: now + 120 })).scheduled_message_id;

    // Another process on the same store: it sends what is due before it listens. Its clock
    // starts at its start's real time, which must be past the first message's: a start can
    // take well under the second between them.
    const dueMs = (now + 1) * 1000;
    if (Date.now() < dueMs) await new Promise((resolve) => setTimeout(resolve, dueMs - Date.now() + 5));
    const peer = await startServerOnStore({ ...server.store, drop: async () => {} }, server.fixtures);
    try {
      const [sent] = await messagesWith("sent at start");
      assert.ok(sent, "sent at start");
      assert.equal(sent.sender_id, member.id);
      const row = await storedRow(atStart);
      assert.deepEqual([row.delivered, row.failed, row.delivered_message_id], [1, 0, sent.id]);
      assert.deepEqual((await list(member)).map((m: { scheduled_message_id: number }) => m.scheduled_message_id), [raced]);

      // Both processes wake at the message's time together.
      const peerNow = await serverSeconds(peer);
      await Promise.all([
        server.api.post(null, "/__test/advance_clock", { seconds: 120 }, { validate: false }),
        peer.api.post(null, "/__test/advance_clock", { seconds: Math.max(0, now + 120 - peerNow) }, { validate: false }),
      ]);
    } finally {
      await peer.stop(); // waits for its worker's pass
    }
    // This process's worker handles due messages in order: once a later one is sent, its try at `raced` is over.
    const queue = await registerQueue(server.api, member, { event_types: ["message"], apply_markdown: false });
    const later = await serverSeconds(server);
    expectSuccess(await schedule(member, { type: "direct", to: [moderator.id], content: "after the race", scheduled_delivery_timestamp: later + 10 }));
    await server.advanceClock(11);
    await eventsUntil(server, queue, (events) => events.some(isMessage("after the race")));
    assert.equal((await messagesWith("raced")).length, 1);
    const row = await storedRow(raced);
    assert.deepEqual([row.delivered, row.failed], [1, 0]);
  });

  test("scheduling: the stored shapes, GET and the snapshot by delivery time, add events to the sender only", async () => {
    const { member, moderator, admin } = server.fixtures;
    const mine = await registerQueue(server.api, member, { event_types: ["scheduled_messages"] });
    const theirs = await registerQueue(server.api, moderator, { event_types: ["scheduled_messages"] });
    const now = await serverSeconds(server);
    const channelId = expectSuccess(await schedule(member, { type: "stream", to: generalId, topic: " Plans ", content: "Meet **at noon**", scheduled_delivery_timestamp: now + 7200 })).scheduled_message_id;
    const directId = expectSuccess(await schedule(member, { type: "private", to: [admin.id, moderator.id, member.id], content: "Group hello", scheduled_delivery_timestamp: now + 3600 })).scheduled_message_id;
    const selfId = expectSuccess(await schedule(member, { type: "direct", to: [member.id], subject: "ignored", content: "note", scheduled_delivery_timestamp: now + 3601 })).scheduled_message_id;
    const channel = { scheduled_message_id: channelId, type: "stream", to: generalId, topic: "Plans", content: "Meet **at noon**", rendered_content: "<p>Meet <strong>at noon</strong></p>", scheduled_delivery_timestamp: now + 7200, failed: false };
    const direct = { scheduled_message_id: directId, type: "private", to: [admin.id, moderator.id], content: "Group hello", rendered_content: "<p>Group hello</p>", scheduled_delivery_timestamp: now + 3600, failed: false };
    const self = { scheduled_message_id: selfId, type: "private", to: [member.id], content: "note", rendered_content: "<p>note</p>", scheduled_delivery_timestamp: now + 3601, failed: false };
    assert.deepEqual(withoutIds(await pollEvents(server.api, mine)), [channel, direct, self].map((m) => ({ type: "scheduled_messages", op: "add", scheduled_messages: [m] })));
    assert.deepEqual(await pollEvents(server.api, theirs), []);
    assert.deepEqual(await list(member), [direct, self, channel]);
    assert.deepEqual(await list(moderator), []);
    const snapshot = await registerQueue(server.api, member, { fetch_event_types: ["scheduled_messages"] });
    assert.deepEqual(snapshot.state.scheduled_messages, [direct, self, channel]);
    // Read by the sender by default only from full UI clients, and never when sent to oneself only.
    assert.deepEqual([(await storedRow(channelId)).read_by_sender, (await storedRow(selfId)).read_by_sender], [0, 0]);
    const fromUi = expectSuccess(await server.api.post(member, "/scheduled_messages", { type: "stream", to: generalId, topic: "t", content: "ui", scheduled_delivery_timestamp: now + 7200 }, { headers: { "user-agent": "ZulipMobile/27.0" } })).scheduled_message_id;
    assert.equal((await storedRow(fromUi)).read_by_sender, 1);
    for (const id of [channelId, directId, selfId, fromUi]) expectSuccess(await server.api.delete(member, `/scheduled_messages/${id}`));
  });

  test("validation errors (upstream's messages), each writing nothing", async () => {
    const { member, moderator } = server.fixtures;
    const now = await serverSeconds(server);
    const ok = { type: "channel", to: generalId, topic: "t", content: "x", scheduled_delivery_timestamp: now + 600 };
    const before = await countRows(server, ["scheduled_messages", "messages"]);
    const bad: Array<[Record<string, unknown>, string, string?]> = [
      [{ ...ok, scheduled_delivery_timestamp: now - 86400 }, IN_PAST],
      [{ ...ok, scheduled_delivery_timestamp: now }, IN_PAST],
      [{ ...ok, type: "bogus" }, "Invalid type"],
      [{ ...ok, to: [generalId] }, "Invalid data type for channel ID"],
      [{ ...ok, type: "direct", to: moderator.id }, "Invalid data type for recipients"],
      [{ ...ok, to: "general" }, "to is not valid JSON"],
      [{ ...ok, type: "direct", to: [moderator.email] }, "Invalid to"],
      [{ ...ok, to: 99999 }, "Channel with ID '99999' does not exist", "STREAM_DOES_NOT_EXIST"],
      [{ ...ok, to: expectSuccess(await server.api.get(server.fixtures.owner, "/get_stream_id", { stream: "secret" })).stream_id }, "Not authorized to send to channel 'secret'"],
      [{ ...ok, type: "direct", to: [99999] }, "Invalid user ID 99999"],
      [{ ...ok, type: "direct", to: [] }, "Message must have recipients"],
      [{ ...ok, topic: undefined }, "Missing topic"],
      [{ ...ok, content: "  \n " }, "Message must not be empty"],
      [{ ...ok, content: "a\u0000b" }, "Message must not contain null bytes"],
      [{ ...ok, scheduled_delivery_timestamp: "soon" }, "scheduled_delivery_timestamp is not an integer"],
      [{ ...ok, scheduled_delivery_timestamp: undefined }, "Missing 'scheduled_delivery_timestamp' argument", "REQUEST_VARIABLE_MISSING"],
      [{ ...ok, topic: "a", subject: "b" }, "Can't decide between 'topic' and 'subject' arguments", "REQUEST_CONFUSING_VAR"],
    ];
    for (const [params, msg, code] of bad) expectError(await schedule(member, params), code ?? "BAD_REQUEST", msg);
    expectError(await schedule(null, ok), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await countRows(server, ["scheduled_messages", "messages"]), before);
  });

  test("editing: upstream's refusals, then each kind of change with its update event", async () => {
    const { member, moderator } = server.fixtures;
    const now = await serverSeconds(server);
    const id = expectSuccess(await schedule(member, { type: "channel", to: generalId, topic: "Test topic", content: "Original", scheduled_delivery_timestamp: now + 86400 })).scheduled_message_id;
    const queue = await registerQueue(server.api, member, { event_types: ["scheduled_messages"] });
    const edit = (params: Record<string, unknown>, user: Credentials = member) => server.api.patch(user, `/scheduled_messages/${id}`, params);
    const current = async () => (await list(member)).find((m: { scheduled_message_id: number }) => m.scheduled_message_id === id);
    const original = await current();

    expectError(await edit({}), "BAD_REQUEST", "Nothing to change");
    expectError(await edit({ type: "direct" }), "BAD_REQUEST", "Recipient required when updating type of scheduled message.");
    expectError(await edit({ type: "channel", to: generalId }), "BAD_REQUEST", "Topic required when updating scheduled message type to channel.");
    expectError(await edit({ scheduled_delivery_timestamp: now - 1 }), "BAD_REQUEST", IN_PAST);
    expectError(await edit({ to: 99999 }), "STREAM_DOES_NOT_EXIST", "Channel with ID '99999' does not exist");
    expectError(await edit({ to: [moderator.id] }), "BAD_REQUEST", "Invalid data type for channel ID");
    expectError(await edit({ content: "theirs" }, moderator), "BAD_REQUEST", NOT_FOUND, 404);
    expectError(await server.api.patch(member, "/scheduled_messages/999999", { content: "x" }), "BAD_REQUEST", NOT_FOUND, 404);
    assert.deepEqual(await current(), original);
    assert.deepEqual(await pollEvents(server.api, queue), []);

    const changes: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ type: "direct", to: [moderator.id] }, { type: "private", to: [moderator.id], topic: undefined }],
      [{ topic: "ignored for direct messages" }, {}],
      [{ type: "stream", to: generalId, topic: "Back" }, { type: "stream", to: generalId, topic: "Back" }],
      [{ content: "Edited **text**" }, { content: "Edited **text**", rendered_content: "<p>Edited <strong>text</strong></p>" }],
      [{ subject: "Final" }, { topic: "Final" }],
      [{ scheduled_delivery_timestamp: now + 90000 }, { scheduled_delivery_timestamp: now + 90000 }],
    ];
    let expected = original;
    for (const [params, change] of changes) {
      expectSuccess(await edit(params));
      expected = Object.fromEntries(Object.entries({ ...expected, ...change }).filter(([, v]) => v !== undefined));
      assert.deepEqual(await current(), expected, JSON.stringify(params));
      assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "scheduled_messages", op: "update", scheduled_message: expected }]);
    }
    expectError(await server.api.patch(null, `/scheduled_messages/${id}`, { content: "x" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectSuccess(await server.api.delete(member, `/scheduled_messages/${id}`));
  });

  test("deleting: only one's own; a remove event; gone afterwards", async () => {
    const { member, moderator } = server.fixtures;
    const now = await serverSeconds(server);
    const id = expectSuccess(await schedule(member, { type: "direct", to: [moderator.id], content: "cancel me", scheduled_delivery_timestamp: now + 600 })).scheduled_message_id;
    const queue = await registerQueue(server.api, member, { event_types: ["scheduled_messages"] });
    expectError(await server.api.delete(moderator, `/scheduled_messages/${id}`), "BAD_REQUEST", NOT_FOUND, 404);
    expectError(await server.api.delete(null, `/scheduled_messages/${id}`), "UNAUTHORIZED", NO_AUTH, 401);
    expectSuccess(await server.api.delete(member, `/scheduled_messages/${id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "scheduled_messages", op: "remove", scheduled_message_id: id }]);
    expectError(await server.api.delete(member, `/scheduled_messages/${id}`), "BAD_REQUEST", NOT_FOUND, 404);
    assert.deepEqual(await list(member), []);
    expectError(await server.api.get(null, "/scheduled_messages"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("sent at its time: the message to its recipients, then a remove event; read by the sender if asked", async () => {
    const { member, moderator } = server.fixtures;
    const now = await serverSeconds(server);
    const id = expectSuccess(await schedule(member, { type: "direct", to: [moderator.id], content: "See you **soon**", scheduled_delivery_timestamp: now + 3600, read_by_sender: true })).scheduled_message_id;
    // The queues outlive the hour the clock jumps.
    const sender = await registerQueue(server.api, member, { event_types: ["message", "scheduled_messages"], apply_markdown: false, queue_lifespan_secs: LONG_LIVED });
    const receiver = await registerQueue(server.api, moderator, { event_types: ["message"], apply_markdown: true, queue_lifespan_secs: LONG_LIVED });
    await server.advanceClock(3599);
    assert.deepEqual(await messagesWith("See you **soon**"), [], "not before its time");
    await server.advanceClock(1);
    const received = await eventsUntil(server, receiver, (events) => events.some((e) => e.type === "message"));
    const message = received[0].message as Record<string, unknown>;
    assert.equal(message.sender_id, member.id);
    assert.equal(message.content, "<p>See you <strong>soon</strong></p>");
    assert.equal(message.timestamp, now + 3600);
    assert.deepEqual(received[0].flags, []);
    const own = await eventsUntil(server, sender, (events) => events.some((e) => e.type === "scheduled_messages"));
    assert.deepEqual(withoutIds(own).map((e) => e.type), ["message", "scheduled_messages"]);
    assert.deepEqual(own[0].flags, ["read"]);
    assert.deepEqual(withoutIds([own[1]]), [{ type: "scheduled_messages", op: "remove", scheduled_message_id: id }]);
    const row = await storedRow(id);
    assert.deepEqual([row.delivered, row.failed, row.delivered_message_id], [1, 0, message.id]);
    assert.deepEqual(await list(member), []);
    expectError(await server.api.patch(member, `/scheduled_messages/${id}`, { content: "too late" }), "BAD_REQUEST", "Scheduled message was already sent");
  });

  test("not sent in time: failed, an update event and the Notification Bot's notice; a new time sends it", async () => {
    const { member } = server.fixtures;
    const now = await serverSeconds(server);
    const id = expectSuccess(await schedule(member, { type: "channel", to: generalId, topic: "late", content: "Too late to send", scheduled_delivery_timestamp: now + 60 })).scheduled_message_id;
    const queue = await registerQueue(server.api, member, { event_types: ["message", "scheduled_messages"], apply_markdown: false, queue_lifespan_secs: LONG_LIVED });
    // The server sleeps through the message's time and ten minutes more.
    await server.advanceClock(60 + 601);
    const events = await eventsUntil(server, queue, (got) => got.some((e) => e.type === "message"));
    assert.deepEqual(events.map((e) => e.type), ["scheduled_messages", "message"]);
    const failed = { scheduled_message_id: id, type: "stream", to: generalId, topic: "late", content: "Too late to send", rendered_content: "<p>Too late to send</p>", scheduled_delivery_timestamp: now + 60, failed: true };
    assert.deepEqual(withoutIds([events[0]]), [{ type: "scheduled_messages", op: "update", scheduled_message: failed }]);
    const notice = events[1].message as Record<string, unknown>;
    assert.equal(notice.sender_full_name, "Notification Bot");
    assert.equal(notice.type, "private");
    const when = new Date((now + 60) * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00");
    assert.equal(notice.content, `The message you scheduled for <time:${when}> was not sent because of the following error:\n\n> Message could not be sent at the scheduled time.\n\n[View scheduled messages](#scheduled)`);
    assert.deepEqual(await list(member), [failed]);
    assert.equal((await storedRow(id)).failure_message, "Message could not be sent at the scheduled time.");

    // A failed message needs a new time; with one it is scheduled again.
    expectError(await server.api.patch(member, `/scheduled_messages/${id}`, { topic: "Failed to send" }), "BAD_REQUEST", IN_PAST);
    const later = await serverSeconds(server);
    expectSuccess(await server.api.patch(member, `/scheduled_messages/${id}`, { scheduled_delivery_timestamp: later + 30 }));
    const [update] = await eventsUntil(server, queue, (got) => got.length > 0);
    assert.deepEqual(withoutIds([update]), [{ type: "scheduled_messages", op: "update", scheduled_message: { ...failed, scheduled_delivery_timestamp: later + 30, failed: false } }]);
    assert.equal((await storedRow(id)).failure_message, null);
    await server.advanceClock(30);
    await eventsUntil(server, queue, (got) => got.some(isMessage("Too late to send")));
    assert.equal((await storedRow(id)).delivered, 1);
  });

  test("a deactivated sender's message fails silently, as upstream's", async () => {
    const { owner, member, moderator } = server.fixtures;
    const leaver = await createUser(server, { name: "Leaving Soon" });
    const now = await serverSeconds(server);
    const id = expectSuccess(await schedule(leaver, { type: "direct", to: [moderator.id], content: "from a leaver", scheduled_delivery_timestamp: now + 30 })).scheduled_message_id;
    expectSuccess(await server.api.delete(owner, `/users/${leaver.id}`));
    expectSuccess(await schedule(member, { type: "direct", to: [moderator.id], content: "sent after", scheduled_delivery_timestamp: now + 31 }));
    const queue = await registerQueue(server.api, moderator, { event_types: ["message"], apply_markdown: false });
    await server.advanceClock(31);
    // Due messages go in time order: once the later one is sent, the leaver's was handled.
    await eventsUntil(server, queue, (events) => events.some(isMessage("sent after")));
    const row = await storedRow(id);
    assert.deepEqual([row.delivered, row.failed, row.failure_message], [0, 1, "Account is deactivated"]);
    assert.deepEqual(await messagesWith("from a leaver"), []);
    const notices = await withDb(server, (db) => db.selectFrom("messages").select("id").where("content", "like", "%Account is deactivated%").execute());
    assert.deepEqual(notices, []);
  });
});

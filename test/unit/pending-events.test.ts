/**
 * GET /events answers written from each event's shared JSON text (events/pending-events.ts,
 * http/endpoint.ts JsonMembers): the bytes equal those of serialising the answer object per
 * queue, as the server did before, for message events (per-user flags, formats, local echo)
 * and other events; queues that see the same message share one copy.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { messageEventTemplate, userFlagSets } from "../../src/events/kinds/messages.ts";
import { realmUserUpdateEvent } from "../../src/events/kinds/users.ts";
import { JsonText, PendingEvents } from "../../src/events/pending-events.ts";
import { EventQueue } from "../../src/events/queue.ts";
import { QueueManager } from "../../src/events/queue-manager.ts";
import type { ClientCapabilities, QueueOptions } from "../../src/events/queue-options.ts";
import { JsonMembers } from "../../src/http/endpoint.ts";
import { queueOptions } from "../helpers/queue-options.ts";
import type { ApiMessage } from "../../src/present/messages.ts";

const REALM = 1;

/** A client with apply_markdown and without client_gravatar, as the web app registers. */
const options = (overrides: Partial<QueueOptions>, capabilities: Partial<ClientCapabilities> = {}) =>
  queueOptions({ apply_markdown: true, client_gravatar: false, ...overrides }, capabilities);

/** A channel message in the empty topic, as the template carries it (HTML, avatar URL, real topic). */
const message: ApiMessage = {
  id: 41, sender_id: 1, content: "<p><strong>hi</strong> \"there\" \u2603</p>", recipient_id: 9, timestamp: 1_700_000_000,
  client: "test", subject: "", topic_links: [], is_me_message: false, reactions: [], submessages: [],
  sender_full_name: "Ada", sender_email: "ada@example.com", sender_realm_str: "zulip", display_recipient: "Denmark",
  type: "stream", stream_id: 3, avatar_url: "https://secure.gravatar.com/avatar/x", content_type: "text/html",
};

/** What GET /events wrote before: the answer object, serialised whole. */
function objectAnswer(pending: PendingEvents, queueId: string, ignored: string[] = []): string {
  const extra = ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
  return JSON.stringify({ result: "success", msg: "", ...{ events: pending.toArray(), queue_id: queueId }, ...extra });
}

/** A JSON text whose byte count is checked against its encoding. */
function checked(json: JsonText): string {
  assert.equal(json.bytes, Buffer.byteLength(json.text), "the counted length is the text's UTF-8 length");
  return json.text;
}

/** The text of the events list as GET /events writes it, from the events' shared text. */
function eventsJson(pending: PendingEvents): string {
  const out = new JsonText();
  pending.appendJson(out);
  return checked(out);
}

/** What GET /events writes now (http/routes/events.ts). */
function textAnswer(pending: PendingEvents, queueId: string, ignored: string[] = []): string {
  const members = new JsonText().ascii('"events":');
  pending.appendJson(members);
  return checked(new JsonMembers(members.any(`,"queue_id":${JSON.stringify(queueId)}`)).envelope(ignored));
}

describe("pending events as JSON text", () => {
  let manager: QueueManager;
  beforeEach(() => (manager = new QueueManager(new ManualClock(), loadConfig({ PORT: "9991" }))));
  afterEach(() => manager.close());

  test("a message event with per-user flags and a non-message event: the same bytes, the same values", async () => {
    const make = (userId: number, opts: QueueOptions) => manager.create({ realmId: REALM, userId, options: opts });
    const sender = make(1, options({}));
    const senderOther = make(1, options({}));
    const raw = make(2, options({ apply_markdown: false, client_gravatar: true }));
    const modern = make(3, options({}, { empty_topic_name: true }));
    const modernToo = make(3, options({}, { empty_topic_name: true }));
    const template = messageEventTemplate(message, {
      raw_content: "**hi** \"there\" \u2603",
      user_flags: userFlagSets([[1, ["read"]], [2, ["mentioned", "wildcard_mentioned"]], [3, []]]),
      gravatar_computable: true,
      empty_topic_display_name: "general chat",
      sender_queue_id: sender.id,
      local_id: "1.5",
    });
    manager.deliver({ realmId: REALM, event: realmUserUpdateEvent(1, { full_name: "Ada \"L\"" }), userIds: [1, 2, 3] });
    manager.deliver({ realmId: REALM, event: template, userIds: [1, 2, 3] });

    const userEvent = { id: 0, type: "realm_user", op: "update", person: { user_id: 1, full_name: "Ada \"L\"" } };
    const named = { ...message, subject: "general chat" };
    const expected = new Map([
      [sender, { id: 1, type: "message", message: named, flags: ["read"], local_message_id: "1.5" }],
      [senderOther, { id: 1, type: "message", message: named, flags: ["read"] }],
      [raw, { id: 1, type: "message", message: { ...named, content: "**hi** \"there\" \u2603", content_type: "text/x-markdown", avatar_url: null }, flags: ["mentioned", "wildcard_mentioned"] }],
      [modern, { id: 1, type: "message", message, flags: [] }],
      [modernToo, { id: 1, type: "message", message, flags: [] }],
    ]);
    for (const [queue, messageEvent] of expected) {
      let pending = null as PendingEvents | null;
      manager.nextEvents(queue, true, (events) => (pending = events));
      assert.ok(pending, "a dont_block poll is answered at once");
      assert.deepEqual(pending.toArray(), [userEvent, messageEvent]);
      assert.equal(eventsJson(pending), JSON.stringify(pending.toArray()));
      assert.equal(textAnswer(pending, queue.id), objectAnswer(pending, queue.id));
      assert.deepEqual(JSON.parse(textAnswer(pending, queue.id)), { result: "success", msg: "", events: [userEvent, messageEvent], queue_id: queue.id });
      assert.equal(textAnswer(pending, queue.id, ["dont_block_x", "a\"b"]), objectAnswer(pending, queue.id, ["dont_block_x", "a\"b"]));
    }
    // One copy for queues that see the same message; the sender's queue has its own (local id).
    assert.equal(modern.pending().events[1], modernToo.pending().events[1]);
    assert.notEqual(sender.pending().events[1], senderOther.pending().events[1]);
    assert.equal(sender.pending().events[0], raw.pending().events[0], "a non-message event is one object in every queue");
  });

  test("an empty answer, a heartbeat, an acknowledged queue and one restored from its snapshot", () => {
    const queue = manager.create({ realmId: REALM, userId: 1, options: options({}) });
    assert.equal(textAnswer(queue.pending(), queue.id), objectAnswer(queue.pending(), queue.id));
    assert.equal(checked(new JsonMembers(new JsonText()).envelope([])), JSON.stringify({ result: "success", msg: "" }));
    assert.equal(checked(new JsonMembers(new JsonText()).envelope(["\u2603"])), JSON.stringify({ result: "success", msg: "", ignored_parameters_unsupported: ["\u2603"] }));
    assert.equal(eventsJson(new PendingEvents(7, [{ type: "heartbeat" }])), JSON.stringify([{ id: 7, type: "heartbeat" }]));
    for (let k = 0; k < 3; k++) manager.deliver({ realmId: REALM, event: { type: "heartbeat" }, userIds: [1] });
    assert.equal(queue.acknowledge(0), "ok");
    assert.deepEqual(queue.contents(), [{ id: 1, type: "heartbeat" }, { id: 2, type: "heartbeat" }]);
    const restored = EventQueue.restore(JSON.parse(JSON.stringify(queue.snapshot())));
    assert.equal(eventsJson(restored.pending()), eventsJson(queue.pending()));
    assert.equal(restored.acknowledge(-1), "already_pruned");
    assert.equal(restored.acknowledge(1), "ok");
    assert.equal(eventsJson(restored.pending()), '[{"id":2,"type":"heartbeat"}]');
  });
});

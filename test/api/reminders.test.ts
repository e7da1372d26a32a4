/**
 * Reminders (FL 381-415): POST/GET /reminders, DELETE /reminders/{id}, `reminders` events (checked
 * against the FL 420 file) and the register key; delivery by the Notification Bot at the time (the
 * test clock); reminders kept apart from scheduled messages.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, withDb } from "../helpers/db.ts";
import { registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { fl420Validators } from "../helpers/openapi-fl420.ts";
import type { TestServer } from "../helpers/server.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { sendMessage } from "../helpers/factories.ts";

const IN_PAST = "Scheduled delivery time must be in the future.";
const NOT_FOUND = "Reminder does not exist";

type Event = Record<string, unknown> & { id: number; type: string };

/** The server's clock, in whole seconds (it stands still until a test advances it). */
async function serverSeconds(server: TestServer): Promise<number> {
  const body = expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds: 0 }, { validate: false }));
  return Math.floor(body.now_ms / 1000);
}

/** Pending events of a queue without heartbeats; `reminders` events checked against the FL 420 file. */
async function poll(server: TestServer, queue: Queue): Promise<Event[]> {
  const res = await server.api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }, { validate: false });
  const events = expectSuccess(res).events as Event[];
  if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
  const { event } = fl420Validators();
  for (const e of events) {
    if (e.type !== "reminders") continue;
    assert.ok(event(e), `event does not match the FL 420 file: ${JSON.stringify(e)} ${JSON.stringify(event.errors?.slice(0, 3))}`);
  }
  return events.filter((e) => e.type !== "heartbeat");
}

/** Long-polls the queue until `done` holds for the events received so far (checked as poll() does). */
async function eventsUntil(server: TestServer, queue: Queue, done: (events: Event[]) => boolean): Promise<Event[]> {
  const got: Event[] = [];
  while (!done(got)) {
    const res = await server.api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId }, { validate: false });
    const events = expectSuccess(res).events as Event[];
    if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
    got.push(...events.filter((e) => e.type !== "heartbeat"));
  }
  const { event } = fl420Validators();
  for (const e of got) if (e.type === "reminders") assert.ok(event(e), `event does not match the FL 420 file: ${JSON.stringify(e)}`);
  return got;
}

describeEachStore("reminders", (server) => {
  let realmUrl: string;
  let generalId: number;
  const remind = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/reminders", params, { validate: false });
  const list = async (user: Credentials) => {
    const body: Record<string, unknown> = expectSuccess(await server.api.get(user, "/reminders", {}, { validate: false }));
    const { schema } = fl420Validators();
    const valid = schema("get_reminders_200_response");
    assert.ok(valid(body), `GET /reminders does not match the FL 420 file: ${JSON.stringify(valid.errors?.slice(0, 3))}`);
    return body.reminders as Array<Record<string, unknown>>;
  };

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], invite_only: true }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    realmUrl = expectSuccess(await server.api.get(null, "/server_settings")).realm_url;
  });

  test("a reminder of a channel message: stored, listed, in the snapshot, an add event; the bot sends it at its time", async () => {
    const { member, moderator } = server.fixtures;
    const messageId = await sendMessage(server, moderator, { type: "stream", to: "general", topic: "plans", content: "Ship it on **Friday**" });
    const queue = await registerQueue(server.api, member, { event_types: ["reminders", "message"], fetch_event_types: ["reminders", "message"], queue_lifespan_secs: 86_400 });
    const other = await registerQueue(server.api, moderator, { event_types: ["reminders"] });
    const now = await serverSeconds(server);
    const reminderId = expectSuccess(await remind(member, { message_id: messageId, scheduled_delivery_timestamp: now + 3600, note: "\ncheck the release notes  \n" })).reminder_id;

    const content = [
      "You requested a reminder for the following message. Note:\n > check the release notes",
      "",
      `@_**${moderator.fullName}|${moderator.id}** [said](${realmUrl}/#narrow/channel/${generalId}-general/topic/plans/near/${messageId}) in #**general>plans@${messageId}**:`,
      "```quote\nShip it on **Friday**\n```",
    ].join("\n");
    const [reminder] = await list(member);
    assert.deepEqual(Object.keys(reminder).sort(), ["content", "failed", "reminder_id", "reminder_target_message_id", "rendered_content", "scheduled_delivery_timestamp", "to", "type"]);
    assert.deepEqual({ ...reminder, rendered_content: undefined }, {
      reminder_id: reminderId,
      type: "private",
      to: [member.id],
      content,
      rendered_content: undefined,
      scheduled_delivery_timestamp: now + 3600,
      failed: false,
      reminder_target_message_id: messageId,
    });
    assert.match(reminder.rendered_content as string, /<blockquote>\n<p>Ship it on <strong>Friday<\/strong><\/p>\n<\/blockquote>/);
    assert.deepEqual(withoutIds(await poll(server, queue)), [{ type: "reminders", op: "add", reminders: [reminder] }]);
    assert.deepEqual(await poll(server, other), []);
    assert.deepEqual((await registerQueue(server.api, member, { fetch_event_types: ["reminders"] })).state.reminders, [reminder]);
    assert.deepEqual(await list(moderator), []);
    // Kept apart from scheduled messages.
    assert.deepEqual(expectSuccess(await server.api.get(member, "/scheduled_messages")).scheduled_messages, []);
    expectError(await server.api.delete(member, `/scheduled_messages/${reminderId}`), "BAD_REQUEST", "Scheduled message does not exist", 404);

    await server.advanceClock(3600);
    const events = await eventsUntil(server, queue, (got) => got.some((e) => e.type === "reminders" && e.op === "remove"));
    const [sent] = await withDb(server, (db) => db.selectFrom("scheduled_messages").select(["delivered", "delivered_message_id"]).where("id", "=", reminderId).execute());
    assert.equal(sent.delivered, 1);
    const message = events.find((e) => e.type === "message")?.message as { id: number; sender_full_name: string; display_recipient: Array<{ id: number }>; content: string };
    assert.equal(message.id, sent.delivered_message_id);
    assert.equal(message.sender_full_name, "Notification Bot");
    assert.deepEqual(message.display_recipient.map((r) => r.id).includes(member.id), true);
    assert.equal(message.content, content);
    assert.deepEqual(withoutIds(events.filter((e) => e.type === "reminders")), [{ type: "reminders", op: "remove", reminder_id: reminderId }]);
    assert.deepEqual(await list(member), []);
  });

  test("a reminder of a direct message names its other participants; a poll is named, not quoted", async () => {
    const { member, moderator, admin } = server.fixtures;
    const dm = await sendMessage(server, moderator, { type: "direct", to: JSON.stringify([member.id, admin.id]), content: "Lunch?" });
    const poll = await sendMessage(server, member, { type: "stream", to: "general", topic: "vote", content: "/poll Where to?\nHere\nThere" });
    const now = await serverSeconds(server);
    const dmId = expectSuccess(await remind(member, { message_id: dm, scheduled_delivery_timestamp: now + 60 })).reminder_id;
    const pollId = expectSuccess(await remind(member, { message_id: poll, scheduled_delivery_timestamp: now + 120 })).reminder_id;
    const [first, second] = await list(member);
    const others = [member, admin].sort((a, b) => a.id - b.id).map((u) => `@_**${u.fullName}|${u.id}**`);
    const members = [member.id, admin.id, moderator.id].sort((a, b) => a - b);
    assert.equal(first.reminder_id, dmId);
    assert.equal(
      first.content,
      `You requested a reminder for the following direct message.\n\n@_**${moderator.fullName}|${moderator.id}** [said](${realmUrl}/#narrow/dm/${members.join(",")}-group/near/${dm}) to ${others.join(" and ")}:\n\`\`\`quote\nLunch?\n\`\`\``,
    );
    assert.equal(second.reminder_id, pollId);
    assert.equal(
      second.content,
      `You requested a reminder for the following message.\n\n@_**${member.fullName}|${member.id}** [sent](${realmUrl}/#narrow/channel/${generalId}-general/topic/vote/near/${poll}) a poll in #**general>vote@${poll}**.`,
    );
    for (const id of [dmId, pollId]) expectSuccess(await server.api.delete(member, `/reminders/${id}`, {}, { validate: false }));
  });

  test("a quoted message holding a fence gets a longer one", async () => {
    const { member } = server.fixtures;
    const messageId = await sendMessage(server, member, { type: "stream", to: "general", topic: "code", content: "```\ncode\n```" });
    const now = await serverSeconds(server);
    const id = expectSuccess(await remind(member, { message_id: messageId, scheduled_delivery_timestamp: now + 60 })).reminder_id;
    const [reminder] = await list(member);
    assert.ok((reminder.content as string).endsWith("````quote\n```\ncode\n```\n````"), reminder.content as string);
    expectSuccess(await server.api.delete(member, `/reminders/${id}`, {}, { validate: false }));
  });

  test("DELETE: the owner's own only; a remove event; a deleted reminder is never sent", async () => {
    const { member, moderator } = server.fixtures;
    const messageId = await sendMessage(server, member, { type: "stream", to: "general", topic: "later", content: "forget me" });
    const now = await serverSeconds(server);
    const id = expectSuccess(await remind(member, { message_id: messageId, scheduled_delivery_timestamp: now + 30 })).reminder_id;
    const queue = await registerQueue(server.api, member, { event_types: ["reminders"] });
    expectError(await server.api.delete(moderator, `/reminders/${id}`, {}, { validate: false }), "BAD_REQUEST", NOT_FOUND, 404);
    expectError(await server.api.delete(member, "/reminders/999999", {}, { validate: false }), "BAD_REQUEST", NOT_FOUND, 404);
    expectError(await server.api.delete(null, `/reminders/${id}`, {}, { validate: false }), "UNAUTHORIZED", NO_AUTH, 401);
    // A scheduled message's id is not a reminder's.
    const scheduled = expectSuccess(await server.api.post(member, "/scheduled_messages", { type: "channel", to: generalId, topic: "t", content: "x", scheduled_delivery_timestamp: now + 600 })).scheduled_message_id;
    expectError(await server.api.delete(member, `/reminders/${scheduled}`, {}, { validate: false }), "BAD_REQUEST", NOT_FOUND, 404);
    expectSuccess(await server.api.delete(member, `/scheduled_messages/${scheduled}`));

    expectSuccess(await server.api.delete(member, `/reminders/${id}`, {}, { validate: false }));
    assert.deepEqual(withoutIds(await poll(server, queue)), [{ type: "reminders", op: "remove", reminder_id: id }]);
    await server.advanceClock(60);
    const bot = await withDb(server, (db) => db.selectFrom("messages").select("id").where("content", "like", "%forget me%").execute());
    assert.equal(bot.length, 1, "only the original message");
  });

  test("errors: past times, messages the caller cannot see, long notes, bad parameters; nothing written", async () => {
    const { member, owner } = server.fixtures;
    const visible = await sendMessage(server, member, { type: "stream", to: "general", topic: "t", content: "hi" });
    const hidden = await sendMessage(server, owner, { type: "stream", to: "hidden", topic: "t", content: "secret" });
    const now = await serverSeconds(server);
    const before = await countRows(server, ["scheduled_messages"]);
    expectError(await remind(member, { message_id: visible, scheduled_delivery_timestamp: now }), "BAD_REQUEST", IN_PAST);
    expectError(await remind(member, { message_id: visible, scheduled_delivery_timestamp: now - 10 }), "BAD_REQUEST", IN_PAST);
    expectError(await remind(member, { message_id: hidden, scheduled_delivery_timestamp: now + 60 }), "BAD_REQUEST", "Invalid message(s)");
    expectError(await remind(member, { message_id: 999999, scheduled_delivery_timestamp: now + 60 }), "BAD_REQUEST", "Invalid message(s)");
    expectError(await remind(member, { message_id: visible, scheduled_delivery_timestamp: now + 60, note: "x".repeat(1001) }), "BAD_REQUEST", "Maximum reminder note length: 1000 characters");
    expectError(await remind(member, { message_id: "one", scheduled_delivery_timestamp: now + 60 }), "BAD_REQUEST", "message_id is not an integer");
    expectError(await remind(member, { message_id: visible }), "REQUEST_VARIABLE_MISSING", "Missing 'scheduled_delivery_timestamp' argument");
    expectError(await remind(null, { message_id: visible, scheduled_delivery_timestamp: now + 60 }), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await countRows(server, ["scheduled_messages"]), before);
  });
});

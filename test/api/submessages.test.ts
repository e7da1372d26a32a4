/** POST /submessages: sender rules, widget data validation, access, and `submessage` events. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("POST /submessages", (server) => {
  const send = messageSender(server, { read_by_sender: true });
  const submit = (user: Credentials | null, message_id: number, msg_type: string, content: unknown) =>
    server.api.post(user, "/submessages", { message_id, msg_type, content: typeof content === "string" ? content : JSON.stringify(content) });
  const submessages = async (user: Credentials, id: number) => expectSuccess(await server.api.get(user, `/messages/${id}`)).message.submessages;

  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "polls" }], principals: [owner.id, member.id] }));
  });

  test("a message list shows each message's submessages and reactions as the single message does", async () => {
    const { owner, member } = server.fixtures;
    const poll = await send(owner, { type: "stream", to: "polls", topic: "list", content: "/poll Tea or coffee?" });
    const plain = await send(member, { type: "stream", to: "polls", topic: "list", content: "no widget here" });
    const reacted = await send(owner, { type: "stream", to: "polls", topic: "list", content: "react to me" });
    expectSuccess(await submit(owner, poll, "widget", { widget_type: "poll", extra_data: { question: "Tea or coffee?", options: [] } }));
    expectSuccess(await submit(member, poll, "widget", { type: "new_option", option: "Tea", idx: 1 }));
    for (const [user, emoji_name] of [[member, "tada"], [owner, "tada"], [owner, "octopus"]] as const) {
      expectSuccess(await server.api.post(user, `/messages/${reacted}/reactions`, { emoji_name }));
    }
    expectSuccess(await server.api.post(member, `/messages/${poll}/reactions`, { emoji_name: "thumbs_up" }));
    const narrow = JSON.stringify([{ operator: "channel", operand: "polls" }, { operator: "topic", operand: "list" }]);
    const listed = expectSuccess(await server.api.get(member, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow })).messages;
    assert.deepEqual(listed.map((m: { id: number }) => m.id), [poll, plain, reacted]);
    for (const m of listed) {
      const single = expectSuccess(await server.api.get(member, `/messages/${m.id}`)).message;
      assert.deepEqual([m.submessages, m.reactions], [single.submessages, single.reactions], `message ${m.id}`);
    }
    assert.equal(listed[0].submessages.length, 2);
    assert.deepEqual(listed[2].reactions.map((r: { emoji_name: string; user_id: number }) => [r.emoji_name, r.user_id]), [["tada", member.id], ["tada", owner.id], ["octopus", owner.id]]);
    assert.deepEqual([listed[1].submessages, listed[1].reactions], [[], []]);
  });

  test("a poll: the sender starts it, others vote, every holder gets the event", async () => {
    const { owner, member } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "polls", topic: "lunch", content: "/poll Where?" });
    const queues = await Promise.all([owner, member].map((u) => registerQueue(server.api, u, { event_types: ["submessage"] })));
    expectError(await submit(member, id, "widget", { type: "vote", key: "1,1", vote: 1 }), "BAD_REQUEST", "You cannot attach a submessage to this message.");
    const widget = JSON.stringify({ widget_type: "poll", extra_data: { question: "Where?", options: [] } });
    expectSuccess(await submit(owner, id, "widget", widget));
    expectSuccess(await submit(member, id, "widget", { type: "new_option", option: "Pizza", idx: 1 }));
    const stored = await submessages(member, id);
    assert.deepEqual(stored.map((s: Record<string, unknown>) => [s.sender_id, s.msg_type, s.content]), [
      [owner.id, "widget", widget],
      [member.id, "widget", JSON.stringify({ type: "new_option", option: "Pizza", idx: 1 })],
    ]);
    for (const q of queues) {
      assert.deepEqual(withoutIds(await pollEvents(server.api, q)), [
        { type: "submessage", msg_type: "widget", message_id: id, submessage_id: stored[0].id, sender_id: owner.id, content: widget },
        { type: "submessage", msg_type: "widget", message_id: id, submessage_id: stored[1].id, sender_id: member.id, content: stored[1].content },
      ]);
    }
  });

  test("errors: auth, access, JSON and poll data rules write nothing", async () => {
    const { owner, member, guest } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "polls", topic: "rules", content: "/poll Rules?" });
    expectSuccess(await submit(owner, id, "widget", { widget_type: "poll", extra_data: { question: "Rules?", options: [] } }));
    const rows = await countRows(server, ["submessages"]);
    expectError(await submit(null, id, "widget", {}), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(owner, "/submessages", { message_id: id, msg_type: "widget" }), "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
    expectError(await submit(owner, 999_999, "widget", {}), "BAD_REQUEST", "Invalid message(s)");
    expectError(await submit(guest, id, "widget", {}), "BAD_REQUEST", "Invalid message(s)");
    expectError(await submit(member, id, "widget", "{not json"), "BAD_REQUEST", "Invalid json for submessage");
    expectError(await submit(member, id, "widget", [1]), "BAD_REQUEST", "poll data is not a dict");
    expectError(await submit(member, id, "widget", { vote: 1 }), "BAD_REQUEST", "type key is missing from poll data");
    expectError(await submit(member, id, "widget", { type: "shout" }), "BAD_REQUEST", "Unknown type for poll data: shout");
    expectError(await submit(member, id, "widget", { type: "question", question: "Mine?" }), "BAD_REQUEST", "You can't edit a question unless you are the author.");
    expectError(await submit(member, id, "widget", { type: "vote", key: "1,1" }), "BAD_REQUEST", "vote key is missing from poll data");
    expectError(await submit(member, id, "widget", { type: "vote", key: 1, vote: 1 }), "BAD_REQUEST", 'poll data["key"] is not a string');
    expectError(await submit(member, id, "widget", { type: "vote", key: "1,1", vote: 1, extra: true }), "BAD_REQUEST", "Unexpected arguments: extra");
    assert.deepEqual(await countRows(server, ["submessages"]), rows);
    expectSuccess(await submit(owner, id, "widget", { type: "question", question: "Rules, really?" }));
  });
});

/**
 * POST /messages/flags and the deprecated mark-as-read calls: flag rules, historical flags,
 * sparse flag rows, and the exact `update_message_flags` events.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("POST /messages/flags", (server) => {
  let generalId: number;
  let secretId: number;
  const send = messageSender(server, { read_by_sender: true });
  const flags = async (user: Credentials, id: number): Promise<string[]> =>
    expectSuccess(await server.api.get(user, `/messages/${id}`)).message.flags;
  const setFlag = (user: Credentials, messages: number[], op: string, flag: string) => server.api.post(user, "/messages/flags", { messages, op, flag });
  const flagRows = (userId: number) =>
    withDb(server, async (db) => (await db.selectFrom("user_message_flags").select(["message_id", "flags"]).where("user_id", "=", userId).orderBy("message_id").execute()));

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(
      await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true, history_public_to_subscribers: false, principals: [member.id, moderator.id] }),
    );
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    secretId = expectSuccess(await server.api.get(member, "/get_stream_id", { stream: "secret" })).stream_id;
  });

  test("starring and unstarring a received message: flags, stored rows and events", async () => {
    const { owner, member } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "general", topic: "stars", content: "shine" });
    const queue = await registerQueue(server.api, member, { event_types: ["update_message_flags"] });
    assert.deepEqual(expectSuccess(await setFlag(member, [id], "add", "starred")), { result: "success", msg: "", messages: [id] });
    assert.deepEqual(await flags(member, id), ["starred"]);
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "update_message_flags", op: "add", operation: "add", flag: "starred", messages: [id], all: false }]);
    // Starring again changes nothing, and says so with an empty list.
    expectSuccess(await setFlag(member, [id], "add", "starred"));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "update_message_flags", op: "add", operation: "add", flag: "starred", messages: [], all: false }]);
    expectSuccess(await setFlag(member, [id], "remove", "starred"));
    assert.deepEqual(await flags(member, id), []);
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "update_message_flags", op: "remove", operation: "remove", flag: "starred", messages: [id], all: false }]);
    // Back to the default (unread): the row stays, with no flags, as the unread watermark may promise it (store/messages/unread-watermarks.ts).
    assert.deepEqual((await flagRows(member.id)).filter((r) => r.message_id === id), [{ message_id: id, flags: 0 }], "back to the default: an empty row");
  });

  test("reading and unreading: message_details for channel and direct messages", async () => {
    const { owner, member } = server.fixtures;
    const channel = await send(owner, { type: "stream", to: "general", topic: "Lunch", content: "food @**Max Member**" });
    const direct = await send(owner, { type: "private", to: [member.id], content: "psst" });
    const group = await send(owner, { type: "private", to: [member.id, server.fixtures.moderator.id], content: "all of us" });
    assert.deepEqual(await flags(member, channel), ["mentioned"]);
    const queue = await registerQueue(server.api, member, { event_types: ["update_message_flags"] });
    expectSuccess(await setFlag(member, [channel, direct, group], "add", "read"));
    assert.deepEqual(await flags(member, channel), ["read", "mentioned"]);
    expectSuccess(await setFlag(member, [channel, direct, group], "remove", "read"));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [channel, direct, group], all: false },
      {
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "read",
        messages: [channel, direct, group],
        all: false,
        message_details: {
          [channel]: { type: "stream", stream_id: generalId, topic: "Lunch", unmuted_stream_msg: true, mentioned: true },
          [direct]: { type: "private", user_ids: [owner.id] },
          [group]: { type: "private", user_ids: [owner.id, server.fixtures.moderator.id].sort((a, b) => a - b) },
        },
      },
    ]);
    assert.deepEqual(await flags(member, direct), []);
    // The sender's own message is read by default; unreading it stores a row, reading it again removes it.
    expectSuccess(await setFlag(owner, [direct], "remove", "read"));
    assert.deepEqual(await flags(owner, direct), []);
    expectSuccess(await setFlag(owner, [direct], "add", "read"));
    assert.deepEqual(await flags(owner, direct), ["read"]);
    assert.deepEqual((await flagRows(owner.id)).filter((r) => r.message_id === direct), []);
  });

  test("a message seen through public history: starring adds a historical row; unsubscribed channels are never unread", async () => {
    const { owner, admin } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "general", topic: "history", content: "old news" });
    assert.deepEqual(await flags(admin, id), ["read", "historical"]);
    const queue = await registerQueue(server.api, admin, { event_types: ["update_message_flags"] });
    expectSuccess(await setFlag(admin, [id], "add", "starred"));
    assert.deepEqual(await flags(admin, id), ["read", "starred", "historical"]);
    // Not subscribed: marking unread skips the message, and marking read has nothing to do.
    expectSuccess(await setFlag(admin, [id], "remove", "read"));
    expectSuccess(await setFlag(admin, [id], "add", "read"));
    expectSuccess(await setFlag(admin, [id], "remove", "starred"));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "update_message_flags", op: "add", operation: "add", flag: "starred", messages: [id], all: false },
      { type: "update_message_flags", op: "remove", operation: "remove", flag: "read", messages: [], all: false, message_details: {} },
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: false },
      { type: "update_message_flags", op: "remove", operation: "remove", flag: "starred", messages: [id], all: false },
    ]);
    assert.deepEqual(await flags(admin, id), ["read", "historical"]);
    assert.deepEqual(await flagRows(admin.id), []);
  });

  test("validation errors use Zulip's wording and write nothing", async () => {
    const { owner, member, guest } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "general", topic: "errors", content: "x" });
    const secret = await send(member, { type: "stream", to: "secret", topic: "hush", content: "private history" });
    const before = await flagRows(owner.id);
    expectError(await server.api.post(null, "/messages/flags", { messages: [id], op: "add", flag: "starred" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(owner, "/messages/flags", { op: "add", flag: "starred" }), "REQUEST_VARIABLE_MISSING", "Missing 'messages' argument");
    expectError(await server.api.post(owner, "/messages/flags", { messages: "[1", op: "add", flag: "starred" }), "BAD_REQUEST", "messages is not valid JSON");
    expectError(await server.api.post(owner, "/messages/flags", { messages: "{}", op: "add", flag: "starred" }), "BAD_REQUEST", "messages is not a list");
    expectError(await server.api.post(owner, "/messages/flags", { messages: [id], op: "add" }), "REQUEST_VARIABLE_MISSING", "Missing 'flag' argument");
    expectError(await setFlag(owner, [id], "add", "bogus"), "BAD_REQUEST", "Invalid flag: 'bogus'");
    expectError(await setFlag(owner, [id], "add", "wildcard_mentioned"), "BAD_REQUEST", "Invalid flag: 'wildcard_mentioned'");
    for (const flag of ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "has_alert_word", "historical", "force_expand"]) {
      expectError(await setFlag(owner, [id], "add", flag), "BAD_REQUEST", `Flag not editable: '${flag}'`);
    }
    expectError(await setFlag(owner, [id], "toggle", "starred"), "BAD_REQUEST", "Invalid message flag operation: 'toggle'");
    expectError(await setFlag(owner, [id, 999_999], "add", "starred"), "BAD_REQUEST", "Invalid message(s)");
    // Private history the owner never received, and a public channel for a guest.
    expectError(await setFlag(owner, [secret], "add", "starred"), "BAD_REQUEST", "Invalid message(s)");
    expectError(await setFlag(guest, [id], "add", "collapsed"), "BAD_REQUEST", "Invalid message(s)");
    assert.deepEqual(await flagRows(owner.id), before);
    assert.deepEqual(await flagRows(guest.id), []);
    // Unknown ids are simply skipped where no row would be written.
    assert.deepEqual(expectSuccess(await setFlag(owner, [999_999], "add", "read")).messages, [999_999]);
    assert.equal(secretId > 0, true);
  });

  test("the deprecated mark-as-read calls", async () => {
    const { owner, member } = server.fixtures;
    const a = await send(owner, { type: "stream", to: "general", topic: "Alpha", content: "1" });
    const b = await send(owner, { type: "stream", to: "general", topic: "beta", content: "2" });
    const c = await send(owner, { type: "private", to: [member.id], content: "3" });
    const queue = await registerQueue(server.api, member, { event_types: ["update_message_flags"] });
    expectError(await server.api.post(member, "/mark_topic_as_read", { stream_id: generalId, topic_name: "nope" }), "BAD_REQUEST", "No such topic 'nope'");
    expectError(await server.api.post(member, "/mark_stream_as_read", { stream_id: 999_999 }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.post(member, "/mark_topic_as_read", { stream_id: generalId }), "REQUEST_VARIABLE_MISSING", "Missing 'topic_name' argument");
    expectSuccess(await server.api.post(member, "/mark_topic_as_read", { stream_id: generalId, topic_name: "alpha" }));
    assert.deepEqual(await flags(member, a), ["read"]);
    assert.deepEqual(await flags(member, b), []);
    expectSuccess(await server.api.post(member, "/mark_stream_as_read", { stream_id: generalId }));
    assert.deepEqual(await flags(member, b), ["read"]);
    assert.deepEqual(await flags(member, c), []);
    assert.deepEqual(expectSuccess(await server.api.post(member, "/mark_all_as_read", {})), { result: "success", msg: "", complete: true });
    assert.deepEqual(await flags(member, c), ["read"]);
    const events = withoutIds(await pollEvents(server.api, queue));
    assert.deepEqual(events[0], { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [a], all: false });
    assert.equal(events[1].flag, "read");
    assert.ok((events[1].messages as number[]).includes(b));
    assert.deepEqual(events[2], { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true });
    assert.equal(events.length, 3);
  });
});

/** GET /messages/{id}/history: snapshots oldest to newest, prev_* only when changed, the HTML diff, the empty topic and the realm switch. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { setRealmSettings } from "../helpers/db.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { sendStreamMessage } from "../helpers/factories.ts";

describeEachStore("GET /messages/{id}/history", (server) => {
  let generalId: number;
  let otherId: number;
  const history = (user: Credentials | null, id: number, params: Record<string, unknown> = {}) => server.api.get(user, `/messages/${id}/history`, params);

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    for (const name of ["general", "other"]) {
      expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals: [owner.id, member.id, moderator.id] }));
    }
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    otherId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "other" })).stream_id;
  });

  test("an unedited message has one snapshot with only the original fields", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "plain", "hello");
    const body = expectSuccess(await history(member, id));
    assert.equal(body.message_history.length, 1);
    const [first] = body.message_history;
    assert.deepEqual(Object.keys(first).sort(), ["content", "rendered_content", "timestamp", "topic", "user_id"]);
    assert.deepEqual({ ...first, timestamp: 0 }, { topic: "plain", content: "hello", rendered_content: "<p>hello</p>", timestamp: 0, user_id: member.id });
  });

  test("content, topic and channel edits replay oldest to newest", async () => {
    const { member, moderator } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "start", "Hello!");
    await server.advanceClock(10);
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { content: "Howdy!" }));
    await server.advanceClock(10);
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { topic: "renamed" }));
    await server.advanceClock(10);
    expectSuccess(await server.api.patch(moderator, `/messages/${id}`, { stream_id: otherId }));
    const snaps = expectSuccess(await history(member, id)).message_history;
    const t0 = snaps[0].timestamp;
    assert.deepEqual(snaps, [
      { topic: "start", content: "Hello!", rendered_content: "<p>Hello!</p>", timestamp: t0, user_id: member.id },
      {
        topic: "start",
        content: "Howdy!",
        rendered_content: "<p>Howdy!</p>",
        timestamp: t0 + 10,
        user_id: member.id,
        prev_content: "Hello!",
        prev_rendered_content: "<p>Hello!</p>",
        content_html_diff: '<div><p><span class="highlight_text_inserted">Howdy!</span> <span class="highlight_text_deleted">Hello!</span></p></div>',
      },
      { topic: "renamed", content: "Howdy!", rendered_content: "<p>Howdy!</p>", timestamp: t0 + 20, user_id: member.id, prev_topic: "start" },
      { topic: "renamed", content: "Howdy!", rendered_content: "<p>Howdy!</p>", timestamp: t0 + 30, user_id: moderator.id, prev_stream: generalId, stream: otherId },
    ]);
  });

  test("the empty topic shows the display name unless allow_empty_topic_name", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "named", "x");
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { topic: "" }));
    const shown = expectSuccess(await history(member, id)).message_history;
    assert.deepEqual([shown[0].topic, shown[1].topic, shown[1].prev_topic], ["named", "general chat", "named"]);
    const raw = expectSuccess(await history(member, id, { allow_empty_topic_name: true })).message_history;
    assert.equal(raw[1].topic, "");
  });

  test("moves_only hides content edits; none disables the call", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "policy", "a");
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { content: "b" }));
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { topic: "policy 2" }));
    await setRealmSettings(server, { message_edit_history_visibility_policy: "moves_only" });
    try {
      const snaps = expectSuccess(await history(member, id)).message_history;
      assert.equal(snaps.length, 2);
      assert.equal(snaps[1].prev_topic, "policy");
      assert.equal(snaps[1].prev_content, undefined);
    } finally {
      await setRealmSettings(server, { message_edit_history_visibility_policy: "all" });
    }
    await setRealmSettings(server, { message_edit_history_visibility_policy: "none" });
    try {
      expectError(await history(member, id), "BAD_REQUEST", "Message edit history is disabled in this organization");
    } finally {
      await setRealmSettings(server, { message_edit_history_visibility_policy: "all" });
    }
  });

  test("unknown or invisible messages, and no credentials", async () => {
    const { member, owner, guest } = server.fixtures;
    expectError(await history(member, 999999), "BAD_REQUEST", "Invalid message(s)");
    const id = await sendStreamMessage(server, member, "general", "guests", "x");
    expectError(await history(guest, id), "BAD_REQUEST", "Invalid message(s)");
    const dm = expectSuccess(await server.api.post(member, "/messages", { type: "direct", to: JSON.stringify([owner.id]), content: "psst" })).id;
    expectError(await history(server.fixtures.moderator, dm), "BAD_REQUEST", "Invalid message(s)");
    expectError(await history(null, id), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await history(member, id, { allow_empty_topic_name: "maybe" }), "BAD_REQUEST", "allow_empty_topic_name is not a boolean");
  });
});

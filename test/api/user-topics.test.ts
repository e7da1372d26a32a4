/** POST /user_topics and the deprecated PATCH /users/me/subscriptions/muted_topics, with their events. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("user topics", (server) => {
  let openId: number;
  let closedId: number;
  const policies = async () =>
    ((await registerQueue(server.api, server.fixtures.member, { fetch_event_types: ["user_topic"] })).state.user_topics as Array<Record<string, unknown>>).map(
      ({ last_updated: _t, ...rest }) => rest,
    );

  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "open" }], principals: [owner.id, member.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "closed" }], invite_only: true }));
    openId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "open" })).stream_id;
    closedId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "closed" })).stream_id;
  });

  test("setting, changing and removing a policy, with muted_topics and user_topic events", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member, { event_types: ["user_topic", "muted_topics"] });
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "Noise", visibility_policy: 1 }));
    const muted = withoutIds(await pollEvents(server.api, queue));
    assert.equal(muted.length, 2);
    const at = muted[1].last_updated as number;
    assert.deepEqual(muted, [
      { type: "muted_topics", muted_topics: [["open", "Noise", at]] },
      { type: "user_topic", stream_id: openId, topic_name: "Noise", last_updated: at, visibility_policy: 1 },
    ]);
    // The same policy again changes nothing and sends nothing.
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "noise", visibility_policy: 1 }));
    assert.deepEqual(await pollEvents(server.api, queue), []);
    await server.advanceClock(10);
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "noise", visibility_policy: 3 }));
    const followed = withoutIds(await pollEvents(server.api, queue));
    const later = followed[1].last_updated as number;
    assert.ok(later >= at + 10, "last_updated follows the clock");
    assert.deepEqual(followed, [
      { type: "muted_topics", muted_topics: [] },
      { type: "user_topic", stream_id: openId, topic_name: "noise", last_updated: later, visibility_policy: 3 },
    ]);
    assert.deepEqual(await policies(), [{ stream_id: openId, topic_name: "Noise", visibility_policy: 3 }]);
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "Noise", visibility_policy: 0 }));
    assert.equal(withoutIds(await pollEvents(server.api, queue))[1].visibility_policy, 0);
    assert.deepEqual(await policies(), []);
    // "(no topic)" stands for the empty topic.
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "(no topic)", visibility_policy: 2 }));
    assert.deepEqual(await policies(), [{ stream_id: openId, topic_name: "", visibility_policy: 2 }]);
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "", visibility_policy: 0 }));
  });

  test("errors write nothing", async () => {
    const { member } = server.fixtures;
    const rows = await countRows(server, ["user_topics"]);
    expectError(await server.api.post(null, "/user_topics", { stream_id: openId, topic: "t", visibility_policy: 1 }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "t" }), "REQUEST_VARIABLE_MISSING", "Missing 'visibility_policy' argument");
    expectError(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "t", visibility_policy: 7 }), "BAD_REQUEST", "Invalid visibility_policy");
    expectError(await server.api.post(member, "/user_topics", { stream_id: openId, topic: "x".repeat(61), visibility_policy: 1 }), "BAD_REQUEST", "topic is too long (limit: 60 characters)");
    expectError(await server.api.post(member, "/user_topics", { stream_id: closedId, topic: "t", visibility_policy: 1 }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.post(member, "/user_topics", { stream_id: 999_999, topic: "t", visibility_policy: 0 }), "BAD_REQUEST", "Invalid channel ID");
    assert.deepEqual(await countRows(server, ["user_topics"]), rows);
  });

  test("the deprecated muted_topics call", async () => {
    const { member } = server.fixtures;
    const patch = (params: Record<string, unknown>) => server.api.patch(member, "/users/me/subscriptions/muted_topics", params);
    expectError(await patch({ topic: "t", op: "add" }), "BAD_REQUEST", "Please supply 'stream'.");
    expectError(await patch({ stream: "open", stream_id: openId, topic: "t", op: "add" }), "BAD_REQUEST", "Please choose one: 'stream' or 'stream_id'.");
    expectError(await patch({ stream: "open", topic: "t", op: "toggle" }), "BAD_REQUEST", "Invalid op");
    expectError(await patch({ stream: "closed", topic: "t", op: "add" }), "BAD_REQUEST", "Invalid channel name 'closed'");
    expectError(await patch({ stream: "nowhere", topic: "t", op: "remove" }), "BAD_REQUEST", "Topic is not muted");
    expectSuccess(await patch({ stream: "open", topic: "Legacy", op: "add" }));
    assert.deepEqual(await policies(), [{ stream_id: openId, topic_name: "Legacy", visibility_policy: 1 }]);
    expectSuccess(await patch({ stream_id: openId, topic: "legacy", op: "remove" }));
    assert.deepEqual(await policies(), []);
  });
});

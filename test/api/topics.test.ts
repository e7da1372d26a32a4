/** GET /users/me/{stream_id}/topics from real messages: history rules, case folding, order. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("GET /users/me/{stream_id}/topics", (server) => {
  const send = messageSender(server, { read_by_sender: true });
  const topics = async (user: Credentials, streamId: number) => expectSuccess(await server.api.get(user, `/users/me/${streamId}/topics`)).topics;
  const streamId = async (user: Credentials, name: string): Promise<number> => expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id;

  test("topics of a public channel, newest first, one per case-insensitive name", async () => {
    const { owner, admin, guest } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "open" }] }));
    const id = await streamId(owner, "open");
    assert.deepEqual(await topics(owner, id), []);
    const a = await send(owner, { type: "stream", to: "open", topic: "alpha", content: "1" });
    const b = await send(owner, { type: "stream", to: "open", topic: "Beta", content: "2" });
    const a2 = await send(owner, { type: "stream", to: "open", topic: "ALPHA", content: "3" });
    assert.ok(a < b);
    const expected = [{ name: "ALPHA", max_id: a2 }, { name: "Beta", max_id: b }];
    assert.deepEqual(await topics(owner, id), expected);
    assert.deepEqual(await topics(admin, id), expected, "public history: non-subscribers see every topic");
    expectError(await server.api.get(guest, `/users/me/${id}/topics`), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.get(null, `/users/me/${id}/topics`), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("protected history: only topics of messages the caller received", async () => {
    const { member, moderator } = server.fixtures;
    expectSuccess(
      await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "closed" }], invite_only: true, history_public_to_subscribers: false }),
    );
    const id = await streamId(member, "closed");
    await send(member, { type: "stream", to: "closed", topic: "before", content: "x" });
    expectSuccess(await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "closed" }], principals: [moderator.id] }));
    const after = await send(member, { type: "stream", to: "closed", topic: "after", content: "y" });
    assert.deepEqual((await topics(member, id)).map((t: { name: string }) => t.name), ["after", "before"]);
    assert.deepEqual(await topics(moderator, id), [{ name: "after", max_id: after }]);
  });

  test("the empty topic shows the realm's display name", async () => {
    const { owner } = server.fixtures;
    const id = await streamId(owner, "open");
    const empty = await send(owner, { type: "stream", to: "open", topic: "", content: "no topic" });
    assert.deepEqual((await topics(owner, id))[0], { name: "general chat", max_id: empty });
  });
});

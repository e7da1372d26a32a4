/** Default channels: POST/DELETE /default_streams, the default_streams event and register key, new users joining them. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { createStream } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

describeEachStore("default channels", (server) => {

  async function defaults(user: Credentials): Promise<number[]> {
    return (await registerQueue(server.api, user, { fetch_event_types: ["default_streams"] })).state.realm_default_streams as number[];
  }

  test("add and remove: events to non-guests, register key, idempotent add", async () => {
    const { admin, member, guest } = server.fixtures;
    const first = await createStream(server, admin, "lobby");
    const second = await createStream(server, admin, "announcements");
    const memberQueue = await registerQueue(server.api, member, { event_types: ["default_streams"] });
    const guestQueue = await registerQueue(server.api, guest, { event_types: ["default_streams"] });
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: second }));
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: first }));
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: first }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, memberQueue)), [
      { type: "default_streams", default_streams: [second] },
      { type: "default_streams", default_streams: [first, second].sort((a, b) => a - b) },
    ]);
    assert.deepEqual(await defaults(member), [first, second].sort((a, b) => a - b));
    assert.deepEqual(await defaults(guest), []);
    expectSuccess(await server.api.delete(admin, "/default_streams", { stream_id: second }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, memberQueue)), [{ type: "default_streams", default_streams: [first] }]);
    assert.deepEqual(await pollEvents(server.api, guestQueue), []);
    expectSuccess(await server.api.delete(admin, "/default_streams", { stream_id: first }));
    assert.deepEqual(await defaults(admin), []);
  });

  test("refusals: non-admins, no auth, private and missing channels; nothing written", async () => {
    const { admin, owner, moderator, member, guest } = server.fixtures;
    const id = await createStream(server, admin, "refusals");
    for (const who of [moderator, member, guest]) {
      expectError(await server.api.post(who, "/default_streams", { stream_id: id }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
      expectError(await server.api.delete(who, "/default_streams", { stream_id: id }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await server.api.post(null, "/default_streams", { stream_id: id }), "UNAUTHORIZED", NO_AUTH, 401);
    const secret = await createStream(server, owner, "secret-default", { invite_only: true });
    expectError(await server.api.post(owner, "/default_streams", { stream_id: secret }), "BAD_REQUEST", "Private channels cannot be made default.");
    expectError(await server.api.post(admin, "/default_streams", { stream_id: 99999 }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.post(admin, "/default_streams", {}), "REQUEST_VARIABLE_MISSING", "Missing 'stream_id' argument");
    assert.deepEqual(await defaults(admin), []);
  });

  test("new users join the default channels (peer_add to the others); bots do not", async () => {
    const { owner, admin, member } = server.fixtures;
    const id = await createStream(server, admin, "welcome-hall");
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: id }));
    const watcher = await registerQueue(server.api, member, { event_types: ["subscription"] });
    const made = expectSuccess(await server.api.post(owner, "/users", { email: "newcomer@example.com", password: "pw-123456789", full_name: "New Comer" }));
    const members = expectSuccess(await server.api.get(admin, `/streams/${id}/members`)).subscribers as number[];
    assert.ok(members.includes(made.user_id), "the new user is subscribed");
    assert.deepEqual(withoutIds(await pollEvents(server.api, watcher)), [{ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [made.user_id] }]);
    const bot = expectSuccess(await server.api.post(admin, "/bots", { full_name: "Some Bot", short_name: "somebot" }));
    const after = expectSuccess(await server.api.get(admin, `/streams/${id}/members`)).subscribers as number[];
    assert.ok(!after.includes(bot.user_id), "bots are not subscribed");
    expectSuccess(await server.api.delete(admin, "/default_streams", { stream_id: id }));
  });
  test("PATCH /streams/{id} is_default_stream: administrators only; a default channel cannot be made private", async () => {
    const { admin, owner, member } = server.fixtures;
    const id = await createStream(server, owner, "patched-default");
    const queue = await registerQueue(server.api, member, { event_types: ["default_streams"] });
    expectError(await server.api.patch(member, `/streams/${id}`, { is_default_stream: true }), "BAD_REQUEST", "You do not have permission to administer this channel.");
    expectSuccess(await server.api.patch(admin, `/streams/${id}`, { is_default_stream: true }));
    assert.deepEqual(await defaults(member), [id]);
    expectError(await server.api.patch(owner, `/streams/${id}`, { is_private: true }), "BAD_REQUEST", "A default channel cannot be private.");
    expectError(await server.api.patch(owner, `/streams/${id}`, { is_private: true, is_default_stream: true }), "BAD_REQUEST", "A default channel cannot be private.");
    // Both at once: no longer default, then private.
    expectSuccess(await server.api.patch(owner, `/streams/${id}`, { is_private: true, is_default_stream: false }));
    assert.deepEqual(await defaults(member), []);
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "default_streams", default_streams: [id] },
      { type: "default_streams", default_streams: [] },
    ]);
  });

  test("archiving a default channel takes it out of the defaults", async () => {
    const { admin, member } = server.fixtures;
    const id = await createStream(server, admin, "archived-default");
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: id }));
    const queue = await registerQueue(server.api, member, { event_types: ["default_streams"] });
    expectSuccess(await server.api.delete(admin, `/streams/${id}`));
    assert.deepEqual(await defaults(member), []);
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "default_streams", default_streams: [] }]);
  });
});

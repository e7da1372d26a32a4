/** `stream` and `subscription` events: register, act, poll, and check exactly who gets what. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectSuccess } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { describeEachStore } from "../helpers/suite.ts";

const EVENT_TYPES = ["stream", "subscription"];

describeEachStore("channel events", (server) => {
  let f: TestServer["fixtures"];

  const register = (user: TestUser, capabilities?: Record<string, boolean>) =>
    registerQueue(server.api, user, { event_types: EVENT_TYPES, client_capabilities: capabilities });
  const poll = async (queue: Queue) => withoutIds(await pollEvents(server.api, queue));
  async function idOf(user: TestUser, name: string): Promise<number> {
    return expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id;
  }
  async function streamObject(user: TestUser, id: number) {
    return expectSuccess(await server.api.get(user, `/streams/${id}`)).stream;
  }

  before(async () => {
    f = server.fixtures;
  });

  test("creating a public channel: stream create to non-guests, subscription add to the subscriber", async () => {
    const [member, moderator, guest] = [await register(f.member), await register(f.moderator), await register(f.guest)];
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }] }));
    const id = await idOf(f.member, "lobby");
    const stream = await streamObject(f.member, id);
    const memberEvents = await poll(member);
    assert.deepEqual(memberEvents[0], { type: "stream", op: "create", streams: [{ ...stream, subscriber_count: 0 }] });
    assert.equal(memberEvents[1].type, "subscription");
    assert.equal(memberEvents[1].op, "add");
    const [sub] = memberEvents[1].subscriptions as Array<Record<string, unknown>>;
    assert.deepEqual([sub.stream_id, sub.subscribers, sub.color], [id, [f.member.id], "#76ce90"]);
    assert.equal(memberEvents.length, 2);
    const created = [{ type: "stream", op: "create", streams: [{ ...stream, subscriber_count: 0 }] }, { type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [f.member.id] }];
    assert.deepEqual(await poll(moderator), created);
    assert.deepEqual(await poll(guest), []);
  });

  test("subscribing another user: their add event, peer_add to others who can see, create for a guest", async () => {
    const id = await idOf(f.member, "lobby");
    const [member, moderator, guest] = [await register(f.member), await register(f.moderator), await register(f.guest)];
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals: [f.guest.id] }));
    const stream = await streamObject(f.member, id);
    const guestEvents = await poll(guest);
    assert.deepEqual(guestEvents[0], { type: "stream", op: "create", streams: [stream] });
    assert.equal(guestEvents[1].op, "add");
    assert.equal(guestEvents.length, 2);
    const peer = { type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [f.guest.id] };
    assert.deepEqual(await poll(member), [peer]);
    assert.deepEqual(await poll(moderator), [peer]);
  });

  test("private channels: create only for administrators and the creator; peers only for those who see it", async () => {
    const [member, moderator, admin] = [await register(f.member), await register(f.moderator), await register(f.admin)];
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "hideout" }], invite_only: true }));
    const id = await idOf(f.member, "hideout");
    const stream = await streamObject(f.member, id);
    assert.deepEqual((await poll(member)).map((e) => `${String(e.type)}/${String(e.op)}`), ["stream/create", "subscription/add"]);
    assert.deepEqual(await poll(admin), [
      { type: "stream", op: "create", streams: [{ ...stream, subscriber_count: 0 }] },
      { type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [f.member.id] },
    ]);
    assert.deepEqual(await poll(moderator), []);
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "hideout" }], principals: [f.moderator.id] }));
    assert.deepEqual((await poll(moderator)).map((e) => `${String(e.type)}/${String(e.op)}`), ["stream/create", "subscription/add"]);
    const peer = { type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [f.moderator.id] };
    assert.deepEqual(await poll(member), [peer]);
    assert.deepEqual(await poll(admin), [peer]);
  });

  test("unsubscribing: remove to the user, peer_remove to others, delete when a private channel is lost", async () => {
    const id = await idOf(f.member, "hideout");
    const [member, moderator, admin] = [await register(f.member), await register(f.moderator), await register(f.admin)];
    expectSuccess(await server.api.delete(f.moderator, "/users/me/subscriptions", { subscriptions: ["hideout"] }));
    const stream = await streamObject(f.member, id);
    assert.deepEqual(await poll(moderator), [
      { type: "subscription", op: "remove", subscriptions: [{ stream_id: id, name: "hideout" }] },
      { type: "stream", op: "delete", streams: [stream] },
    ]);
    const peer = { type: "subscription", op: "peer_remove", stream_ids: [id], user_ids: [f.moderator.id] };
    assert.deepEqual(await poll(member), [peer]);
    assert.deepEqual(await poll(admin), [peer]);
  });

  test("personal settings: subscription update to the user only, two events for muting", async () => {
    const id = await idOf(f.member, "lobby");
    const [member, moderator] = [await register(f.member), await register(f.moderator)];
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions/properties", {
      subscription_data: [{ stream_id: id, property: "pin_to_top", value: true }, { stream_id: id, property: "is_muted", value: true }],
    }));
    assert.deepEqual(await poll(member), [
      { type: "subscription", op: "update", stream_id: id, property: "pin_to_top", value: true },
      { type: "subscription", op: "update", stream_id: id, property: "in_home_view", value: false },
      { type: "subscription", op: "update", stream_id: id, property: "is_muted", value: true },
    ]);
    assert.deepEqual(await poll(moderator), []);
  });

  test("renaming and describing: stream update to everyone who can see the channel", async () => {
    const id = await idOf(f.member, "lobby");
    const [moderator, guest] = [await register(f.moderator), await register(f.guest)];
    expectSuccess(await server.api.patch(f.member, `/streams/${id}`, { new_name: "hall", description: "Big room" }));
    const expected = [
      { type: "stream", op: "update", stream_id: id, name: "lobby", property: "name", value: "hall" },
      { type: "stream", op: "update", stream_id: id, name: "lobby", property: "description", value: "Big room", rendered_description: "<p>Big room</p>" },
    ];
    assert.deepEqual(await poll(moderator), expected);
    assert.deepEqual(await poll(guest), expected);
  });

  test("archiving: delete for older clients, is_archived update with archived_channels", async () => {
    const id = await idOf(f.member, "hall");
    const [old, modern, outsider] = [await register(f.member), await register(f.moderator, { notification_settings_null: false, archived_channels: true }), await register(f.admin)];
    expectSuccess(await server.api.delete(f.admin, `/streams/${id}`));
    const archived = expectSuccess(await server.api.get(f.member, "/streams", { exclude_archived: false })).streams.find((s: { stream_id: number }) => s.stream_id === id);
    assert.deepEqual(await poll(old), [{ type: "stream", op: "delete", streams: [archived] }]);
    assert.deepEqual(await poll(outsider), [{ type: "stream", op: "delete", streams: [archived] }]);
    assert.deepEqual(await poll(modern), [{ type: "stream", op: "update", stream_id: id, name: "hall", property: "is_archived", value: true }]);
  });

  test("register snapshot: subscriptions, never_subscribed and streams; archived only with the capability", async () => {
    const plain = await registerQueue(server.api, f.member, { fetch_event_types: ["subscription", "stream", "default_streams"], include_subscribers: true });
    const names = (list: unknown) => (list as Array<{ name: string }>).map((s) => s.name);
    assert.deepEqual(names(plain.state.subscriptions), ["hideout"]);
    assert.ok(!names(plain.state.streams).includes("hall"));
    assert.deepEqual(plain.state.realm_default_streams, []);
    const hideout = (plain.state.subscriptions as Array<{ subscribers: number[] }>)[0];
    assert.deepEqual(hideout.subscribers, [f.member.id]);
    const modern = await registerQueue(server.api, f.member, { fetch_event_types: ["subscription", "stream"], client_capabilities: { notification_settings_null: false, archived_channels: true } });
    assert.deepEqual(names(modern.state.subscriptions), ["hall", "hideout"]);
    assert.ok(names(modern.state.streams).includes("hall"));
    const guest = await registerQueue(server.api, f.guest, { fetch_event_types: ["subscription", "stream"] });
    assert.deepEqual(names(guest.state.never_subscribed), []);
    assert.deepEqual(names(guest.state.streams), []);
  });
});

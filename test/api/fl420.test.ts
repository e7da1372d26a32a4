/**
 * What upstream added between FL 373 and 420: POST /users/{user_id}/status (FL 407),
 * POST /channels/create (FL 417), navigation views (FL 390) and channel folders (FL 389/414),
 * with their events (checked against the FL 420 OpenAPI file) and register keys.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { countRows } from "../helpers/db.ts";
import { fl420Validators } from "../helpers/openapi-fl420.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

/** Pending events of a queue, without heartbeats; each checked against the FL 420 event schemas. */
async function poll(server: TestServer, queue: Queue): Promise<Array<Record<string, unknown>>> {
  const res = await server.api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }, { validate: false });
  const body = expectSuccess(res);
  const events = body.events as Array<Record<string, unknown> & { id: number }>;
  if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
  const out = events.filter((e) => e.type !== "heartbeat");
  const { event } = fl420Validators();
  for (const e of out) {
    if (e.type !== "navigation_view" && e.type !== "channel_folder") continue;
    assert.ok(event(e), `event does not match the FL 420 file: ${JSON.stringify(e)} ${JSON.stringify(event.errors?.slice(0, 3))}`);
  }
  return out;
}

describeEachStore("FL 373-420 additions", (server) => {
  describe("POST /users/{user_id}/status", () => {
    const post = (user: Credentials | null, id: number, params: Record<string, unknown>) => server.api.post(user, `/users/${id}/status`, params, { validate: false });
    const statusOf = async (id: number) => expectSuccess(await server.api.get(server.fixtures.admin, `/users/${id}/status`)).status;

    test("an administrator sets and clears another user's status; the event goes out", async () => {
      const { admin, member, owner } = server.fixtures;
      const queue = await registerQueue(server.api, owner, { event_types: ["user_status"] });
      expectSuccess(await post(admin, member.id, { status_text: "  in a meeting ", emoji_name: "car" }));
      assert.deepEqual(await statusOf(member.id), { status_text: "in a meeting", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });
      assert.deepEqual(withoutIds(await poll(server, queue)), [
        { type: "user_status", user_id: member.id, status_text: "in a meeting", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" },
      ]);
      expectSuccess(await post(owner, member.id, { status_text: "", emoji_name: "" }));
      assert.deepEqual(await statusOf(member.id), {});
    });

    test("permission and validation errors, as upstream", async () => {
      const { admin, member, moderator, bot, guest } = server.fixtures;
      expectError(await post(null, member.id, { status_text: "x" }), "UNAUTHORIZED", NO_AUTH, 401);
      expectError(await post(moderator, member.id, { status_text: "x" }), "BAD_REQUEST", "Insufficient permission");
      expectError(await post(member, member.id, { status_text: "x" }), "BAD_REQUEST", "Insufficient permission");
      expectError(await post(bot, guest.id, { status_text: "x" }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
      expectError(await post(admin, bot.id, { status_text: "x" }), "BAD_REQUEST", "No such user");
      expectError(await post(admin, 999999, { status_text: "x" }), "BAD_REQUEST", "No such user");
      expectError(await post(admin, guest.id, {}), "BAD_REQUEST", "Client did not pass any new values.");
      expectError(await post(admin, guest.id, { status_text: "x".repeat(61) }), "BAD_REQUEST", "status_text is too long (limit: 60 characters)");
      expectError(await post(admin, guest.id, { emoji_code: "1f697" }), "BAD_REQUEST", "Client did not pass any new values.");
      expectError(await post(admin, guest.id, { status_text: "x", emoji_code: "1f697" }), "BAD_REQUEST", "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
      assert.deepEqual(await statusOf(guest.id), {});
      assert.deepEqual(await statusOf(member.id), {});
    });
  });

  describe("POST /channels/create", () => {
    const create = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/channels/create", params, { validate: false });
    const streamById = async (id: number) => expectSuccess(await server.api.get(server.fixtures.admin, `/streams/${id}`, {}, { validate: false })).stream;

    test("creates a channel with subscribers and answers its id; the creator need not subscribe", async () => {
      const { member, moderator, guest } = server.fixtures;
      const body = expectSuccess(await create(member, { name: " music ", description: "All things music", subscribers: [moderator.id, guest.id] }));
      assert.equal(typeof body.id, "number");
      const stream = await streamById(body.id);
      assert.deepEqual([stream.name, stream.description, stream.invite_only, stream.folder_id], ["music", "All things music", false, null]);
      const members = expectSuccess(await server.api.get(member, `/streams/${body.id}/members`)).subscribers;
      assert.deepEqual([...members].sort(), [moderator.id, guest.id].sort());
    });

    test("without subscribers: an empty channel, announced to who can see it", async () => {
      const { member, owner } = server.fixtures;
      const queue = await registerQueue(server.api, owner, { event_types: ["stream"] });
      const id = expectSuccess(await create(member, { name: "quiet", invite_only: false })).id;
      assert.deepEqual(expectSuccess(await server.api.get(member, `/streams/${id}/members`)).subscribers, []);
      const events = await poll(server, queue);
      assert.deepEqual(events.map((e) => [e.type, e.op]), [["stream", "create"]]);
      assert.equal((events[0].streams as Array<{ stream_id: number }>)[0].stream_id, id);
    });

    test("a taken name is a 409; other refusals write nothing", async () => {
      const { member, guest, admin } = server.fixtures;
      expectSuccess(await create(member, { name: "taken" }));
      const before = await countRows(server, ["streams"]);
      expectError(await create(admin, { name: "TAKEN" }), "CHANNEL_ALREADY_EXISTS", "Channel 'TAKEN' already exists", 409);
      expectError(await create(null, { name: "x1" }), "UNAUTHORIZED", NO_AUTH, 401);
      expectError(await create(guest, { name: "x2" }), "BAD_REQUEST", "Not allowed for guest users");
      expectError(await create(member, {}), "REQUEST_VARIABLE_MISSING", "Missing 'name' argument");
      expectError(await create(member, { name: "  " }), "BAD_REQUEST", "Channel name can't be empty.");
      expectError(await create(member, { name: "x3", is_default_stream: true }), "BAD_REQUEST", "Insufficient permission");
      expectError(await create(admin, { name: "x4", is_default_stream: true, invite_only: true }), "BAD_REQUEST", "A default channel cannot be private.");
      expectError(await create(member, { name: "x5", folder_id: 999999 }), "BAD_REQUEST", "Invalid channel folder ID");
      expectError(await create(member, { name: "x6", subscribers: [999999] }), "BAD_REQUEST", "No such user");
      assert.deepEqual(await countRows(server, ["streams"]), before);
    });
  });

  describe("navigation views", () => {
    const views = async (user: Credentials) => expectSuccess(await server.api.get(user, "/navigation_views", {}, { validate: false })).navigation_views;

    test("add, edit, remove, with events to the owner and the register key", async () => {
      const { member, admin } = server.fixtures;
      const queue = await registerQueue(server.api, member, { event_types: ["navigation_view"], fetch_event_types: ["navigation_view"] });
      assert.deepEqual(queue.state.navigation_views, []);
      expectSuccess(await server.api.post(member, "/navigation_views", { fragment: "inbox", is_pinned: false }, { validate: false }));
      expectSuccess(await server.api.post(member, "/navigation_views", { fragment: " narrow/is/alerted ", is_pinned: true, name: " Alert Words " }, { validate: false }));
      assert.deepEqual(await views(member), [
        { fragment: "inbox", is_pinned: false, name: null },
        { fragment: "narrow/is/alerted", is_pinned: true, name: "Alert Words" },
      ]);
      assert.deepEqual(await views(admin), []);
      // The fragment in the path, raw or percent-encoded.
      expectSuccess(await server.api.patch(member, "/navigation_views/narrow/is/alerted", { is_pinned: false }, { validate: false }));
      expectSuccess(await server.api.patch(member, "/navigation_views/narrow%2Fis%2Falerted", { name: "Watched phrases" }, { validate: false }));
      expectSuccess(await server.api.delete(member, "/navigation_views/inbox", {}, { validate: false }));
      assert.deepEqual(await views(member), [{ fragment: "narrow/is/alerted", is_pinned: false, name: "Watched phrases" }]);
      assert.deepEqual(withoutIds(await poll(server, queue)), [
        { type: "navigation_view", op: "add", navigation_view: { fragment: "inbox", is_pinned: false, name: null } },
        { type: "navigation_view", op: "add", navigation_view: { fragment: "narrow/is/alerted", is_pinned: true, name: "Alert Words" } },
        { type: "navigation_view", op: "update", fragment: "narrow/is/alerted", data: { is_pinned: false } },
        { type: "navigation_view", op: "update", fragment: "narrow/is/alerted", data: { name: "Watched phrases" } },
        { type: "navigation_view", op: "remove", fragment: "inbox" },
      ]);
      const again = await registerQueue(server.api, member, { fetch_event_types: ["navigation_view"] });
      assert.deepEqual(again.state.navigation_views, [{ fragment: "narrow/is/alerted", is_pinned: false, name: "Watched phrases" }]);
    });

    test("errors as upstream; nothing written", async () => {
      const { moderator } = server.fixtures;
      const post = (params: Record<string, unknown>) => server.api.post(moderator, "/navigation_views", params, { validate: false });
      expectSuccess(await post({ fragment: "recent", is_pinned: true }));
      expectSuccess(await post({ fragment: "narrow/channel/1", is_pinned: true, name: "One" }));
      const before = await countRows(server, ["navigation_views"]);
      expectError(await post({ fragment: "  ", is_pinned: true }), "BAD_REQUEST", "fragment cannot be blank");
      expectError(await post({ fragment: "x" }), "REQUEST_VARIABLE_MISSING", "Missing 'is_pinned' argument");
      expectError(await post({ fragment: "feed", is_pinned: true, name: "Feed" }), "BAD_REQUEST", "Built-in views cannot have a custom name.");
      expectError(await post({ fragment: "narrow/view", is_pinned: true }), "BAD_REQUEST", "Custom views must have a valid name.");
      expectError(await post({ fragment: "recent", is_pinned: false }), "BAD_REQUEST", "Navigation view already exists.");
      expectError(await post({ fragment: "narrow/channel/2", is_pinned: false, name: "One" }), "BAD_REQUEST", "Navigation view already exists.");
      const patch = (fragment: string, params: Record<string, unknown>) => server.api.patch(moderator, `/navigation_views/${fragment}`, params, { validate: false });
      expectError(await patch("recent", { name: "Recent" }), "BAD_REQUEST", "Built-in views cannot have a custom name.");
      expectError(await patch("narrow/channel/1", { name: "One" }), "BAD_REQUEST", "Navigation view already exists.");
      expectError(await patch("narrow/nothing", { is_pinned: true }), "BAD_REQUEST", "Navigation view does not exist.", 404);
      expectError(await server.api.delete(moderator, "/navigation_views/narrow/nothing", {}, { validate: false }), "BAD_REQUEST", "Navigation view does not exist.", 404);
      expectError(await server.api.get(null, "/navigation_views", {}, { validate: false }), "UNAUTHORIZED", NO_AUTH, 401);
      assert.deepEqual(await countRows(server, ["navigation_views"]), before);
    });
  });

  describe("channel folders", () => {
    const folders = async (user: Credentials, params: Record<string, unknown> = {}) =>
      expectSuccess(await server.api.get(user, "/channel_folders", params, { validate: false })).channel_folders;
    const createFolder = (user: Credentials, params: Record<string, unknown>) => server.api.post(user, "/channel_folders/create", params, { validate: false });

    test("create, update, archive, reorder: events to the realm, the register key, and the shape", async () => {
      const { admin, member, guest } = server.fixtures;
      const queue = await registerQueue(server.api, guest, { event_types: ["channel_folder"], fetch_event_types: ["channel_folder"] });
      assert.deepEqual(queue.state.channel_folders, []);
      const a = expectSuccess(await createFolder(admin, { name: " Frontend ", description: "Channels for **frontend**" })).channel_folder_id;
      const b = expectSuccess(await createFolder(admin, { name: "Backend" })).channel_folder_id;
      const listed = await folders(member);
      assert.deepEqual(listed.map((f: { id: number; order: number }) => [f.id, f.order]), [[a, 0], [b, 1]]);
      const shape = fl420Validators().schema("ChannelFolder");
      for (const f of listed) assert.ok(shape(f), JSON.stringify(shape.errors));
      assert.equal(listed[0].rendered_description, "<p>Channels for <strong>frontend</strong></p>");
      assert.deepEqual([listed[0].name, listed[0].creator_id, listed[0].is_archived], ["Frontend", admin.id, false]);
      expectSuccess(await server.api.patch(admin, `/channel_folders/${a}`, { name: "Web" }, { validate: false }));
      expectSuccess(await server.api.patch(admin, "/channel_folders", { order: [b, a] }, { validate: false }));
      expectSuccess(await server.api.patch(admin, `/channel_folders/${b}`, { is_archived: true }, { validate: false }));
      assert.deepEqual((await folders(member)).map((f: { id: number }) => f.id), [a]);
      assert.deepEqual((await folders(member, { include_archived: true })).map((f: { id: number }) => f.id), [b, a]);
      const events = withoutIds(await poll(server, queue));
      assert.deepEqual(events.map((e) => [e.op, e.channel_folder_id ?? null]), [["add", null], ["add", null], ["update", a], ["reorder", null], ["update", b]]);
      assert.deepEqual(events[2].data, { name: "Web" });
      assert.deepEqual(events[3].order, [b, a]);
      assert.deepEqual(events[4].data, { is_archived: true });
      const again = await registerQueue(server.api, member, { fetch_event_types: ["channel_folder"] });
      assert.deepEqual((again.state.channel_folders as Array<{ id: number }>).map((f) => f.id), [b, a]);
      // Unarchive for the next test.
      expectSuccess(await server.api.patch(admin, `/channel_folders/${b}`, { is_archived: false }, { validate: false }));
    });

    test("errors as upstream; nothing written", async () => {
      const { admin, moderator } = server.fixtures;
      const before = await countRows(server, ["channel_folders"]);
      const existing = await folders(admin, { include_archived: true });
      expectError(await createFolder(moderator, { name: "Mine" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
      expectError(await createFolder(admin, { name: "  " }), "BAD_REQUEST", "Channel folder name can't be empty.");
      expectError(await createFolder(admin, { name: "x".repeat(61) }), "BAD_REQUEST", "name is too long (limit: 60 characters)");
      expectError(await createFolder(admin, { name: existing[0].name.toUpperCase() }), "BAD_REQUEST", "Channel folder name already in use");
      expectError(await createFolder(admin, { name: "bad\u0001name" }), "BAD_REQUEST", "Invalid character in channel folder name, at position 4.");
      expectError(await server.api.patch(admin, "/channel_folders/999999", { name: "x" }, { validate: false }), "BAD_REQUEST", "Invalid channel folder ID");
      expectError(await server.api.patch(moderator, `/channel_folders/${existing[0].id}`, { name: "x" }, { validate: false }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
      expectError(await server.api.patch(admin, "/channel_folders", { order: [existing[0].id] }, { validate: false }), "BAD_REQUEST", "Invalid order mapping");
      expectError(await server.api.patch(admin, "/channel_folders", { order: [existing[0].id, existing[0].id] }, { validate: false }), "BAD_REQUEST", "Invalid order mapping");
      assert.deepEqual(await countRows(server, ["channel_folders"]), before);
    });

    test("a channel's folder_id: set and cleared by PATCH /streams/{id}, with the stream event; archiving needs an empty folder", async () => {
      const { admin, member } = server.fixtures;
      const folder = expectSuccess(await createFolder(admin, { name: "Ops" })).channel_folder_id;
      const stream = expectSuccess(await server.api.post(admin, "/channels/create", { name: "ops-chat", subscribers: [member.id], folder_id: folder }, { validate: false })).id;
      const get = async () => expectSuccess(await server.api.get(member, `/streams/${stream}`, {}, { validate: false })).stream.folder_id;
      assert.equal(await get(), folder);
      expectError(await server.api.patch(admin, `/channel_folders/${folder}`, { is_archived: true }, { validate: false }), "BAD_REQUEST", "You need to remove all the channels from this folder to archive it.");
      const queue = await registerQueue(server.api, member, { event_types: ["stream"] });
      expectSuccess(await server.api.patch(admin, `/streams/${stream}`, { folder_id: null }, { validate: false }));
      assert.equal(await get(), null);
      expectError(await server.api.patch(admin, `/streams/${stream}`, { folder_id: 999999 }, { validate: false }), "BAD_REQUEST", "Invalid channel folder ID");
      expectSuccess(await server.api.patch(admin, `/streams/${stream}`, { folder_id: folder }, { validate: false }));
      assert.equal(await get(), folder);
      assert.deepEqual(withoutIds(await poll(server, queue)), [
        { type: "stream", op: "update", stream_id: stream, name: "ops-chat", property: "folder_id", value: null },
        { type: "stream", op: "update", stream_id: stream, name: "ops-chat", property: "folder_id", value: folder },
      ]);
    });
  });
});

/** Channels: creating through subscribe, reading, visibility, updating, archiving, topics. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { openStore } from "../../src/store/db.ts";
import { withDb } from "../helpers/db.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_OWNER } from "../helpers/errors.ts";

/** System group ids of the fixture realm, read straight from the store. */
async function systemGroupIds(server: TestServer): Promise<Record<string, number>> {
  const store = openStore({ databaseUrl: server.store.databaseUrl, dataDir: server.store.dataDir });
  try {
    const rows = await store.db.selectFrom("user_groups").select(["id", "name"]).where("is_system_group", "=", 1).execute();
    return Object.fromEntries(rows.map((r) => [r.name ?? "", r.id]));
  } finally {
    await store.close();
  }
}

/** Turns on realm settings directly in the store (realm settings have no API yet in this suite). */
async function setRealmSettings(server: TestServer, values: Record<string, unknown>): Promise<void> {
  await withDb(server, async (db) => {
    const realm = await db.selectFrom("realms").selectAll().where("id", "=", server.fixtures.realmId).executeTakeFirstOrThrow();
    const settings = { ...(JSON.parse(realm.settings) as Record<string, unknown>), ...values };
    await db.updateTable("realms").set({ settings: JSON.stringify(settings) }).where("id", "=", realm.id).execute();
  });
}

describeEachStore("channels", (server) => {
  let f: TestServer["fixtures"];
  let groups: Record<string, number>;

  async function create(user: TestUser, name: string, extra: Record<string, unknown> = {}): Promise<number> {
    expectSuccess(await server.api.post(user, "/users/me/subscriptions", { subscriptions: [{ name }], ...extra }));
    return expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id;
  }
  async function names(user: TestUser, params: Record<string, unknown> = {}): Promise<string[]> {
    return expectSuccess(await server.api.get(user, "/streams", params)).streams.map((s: { name: string }) => s.name);
  }

  before(async () => {
    f = server.fixtures;
    groups = await systemGroupIds(server);
  });

  test("subscribing to a missing channel creates it with Zulip's defaults", async () => {
    const res = expectSuccess(
      await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: " general ", description: "Talk\nhere" }] }, { encoding: "multipart" }),
    );
    assert.deepEqual(res.subscribed, { [String(f.member.id)]: ["general"] });
    assert.deepEqual(res.already_subscribed, {});
    assert.equal(res.unauthorized, undefined);
    const id = expectSuccess(await server.api.get(f.member, "/get_stream_id", { stream: "GENERAL" })).stream_id;
    const { stream } = expectSuccess(await server.api.get(f.member, `/streams/${id}`));
    assert.equal(stream.name, "general");
    assert.equal(stream.description, "Talk here");
    assert.equal(stream.rendered_description, "<p>Talk here</p>");
    assert.equal(stream.creator_id, f.member.id);
    assert.equal(stream.invite_only, false);
    assert.equal(stream.history_public_to_subscribers, true);
    assert.equal(stream.is_archived, false);
    assert.equal(stream.stream_post_policy, 1);
    assert.equal(stream.can_remove_subscribers_group, groups["role:administrators"]);
    assert.equal(typeof stream.date_created, "number");
    const again = expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
    assert.deepEqual(again, { result: "success", msg: "", subscribed: {}, already_subscribed: { [String(f.member.id)]: ["general"] } });
  });

  test("every channel endpoint needs credentials", async () => {
    const msg = NO_AUTH;
    for (const [method, path] of [
      ["GET", "/streams"], ["GET", "/streams/1"], ["PATCH", "/streams/1"], ["DELETE", "/streams/1"],
      ["GET", "/streams/1/members"], ["GET", "/get_stream_id"], ["GET", "/users/me/1/topics"],
    ]) {
      expectError(await server.api.request(method, path, null, {}), "UNAUTHORIZED", msg, 401);
    }
  });

  test("guests cannot create or join channels through subscribe", async () => {
    expectError(await server.api.post(f.guest, "/users/me/subscriptions", { subscriptions: [{ name: "guest-made" }] }), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await server.api.get(f.admin, "/get_stream_id", { stream: "guest-made" }), "BAD_REQUEST", "Invalid channel name 'guest-made'");
  });

  test("channel names, descriptions and settings are validated and nothing is written on error", async () => {
    const post = (params: Record<string, unknown>) => server.api.post(f.member, "/users/me/subscriptions", params);
    expectError(await post({}), "REQUEST_VARIABLE_MISSING", "Missing 'subscriptions' argument");
    expectError(await post({ subscriptions: "nope" }), "BAD_REQUEST", "subscriptions is not valid JSON");
    expectError(await post({ subscriptions: [{ name: "  " }] }), "BAD_REQUEST", "Channel name can't be empty.");
    expectError(await post({ subscriptions: [{ name: "x".repeat(61) }] }), "BAD_REQUEST", "Channel name too long (limit: 60 characters).");
    expectError(await post({ subscriptions: [{ name: "bad\u0001name" }] }), "BAD_REQUEST", "Invalid character in channel name, at position 4.");
    expectError(
      await post({ subscriptions: [{ name: "long-desc", description: "d".repeat(1025) }] }),
      "BAD_REQUEST",
      'subscriptions[0]["description"] is too long (limit: 1024 characters)',
    );
    expectError(await post({ subscriptions: [{ name: "ret" }], message_retention_days: "soon" }), "BAD_REQUEST", "Bad value for 'message_retention_days': soon");
    expectError(await post({ subscriptions: [{ name: "ret" }], message_retention_days: 30 }), "BAD_REQUEST", NOT_OWNER);
    expectError(await post({ subscriptions: [{ name: "wp" }], is_web_public: true }), "BAD_REQUEST", "Web-public channels are not enabled.");
    expectError(await post({ subscriptions: [{ name: "who" }], principals: [99999] }), "BAD_REQUEST", "No such user");
    expectError(await post({ subscriptions: [{ name: "who" }], principals: ["nobody@example.com"] }), "BAD_REQUEST", "No such user");
    expectError(
      await post({ subscriptions: [{ name: "grp" }], can_add_subscribers_group: groups["role:everyone"] }),
      "BAD_REQUEST",
      "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
    );
    expectError(await post({ subscriptions: [{ name: "grp" }], can_send_message_group: 99999 }), "BAD_REQUEST", "Invalid user group ID: 99999");
    expectError(
      await post({ subscriptions: [{ name: "grp" }], can_delete_any_message_group: groups["role:members"] }),
      "BAD_REQUEST",
      "Insufficient permission",
    );
    expectError(await post({ subscriptions: [{ name: "grp", color: "red" }] }), "BAD_REQUEST", "add.color is not a valid hex color code");
    const all = await names(f.owner, { include_all: true });
    for (const name of ["ret", "wp", "who", "grp", "long-desc"]) assert.ok(!all.includes(name), name);
  });

  test("realm creation permissions apply to each kind of channel", async () => {
    await setRealmSettings(server, { enable_spectator_access: true });
    expectError(
      await server.api.post(f.admin, "/users/me/subscriptions", { subscriptions: [{ name: "web" }], is_web_public: true }),
      "BAD_REQUEST",
      "Insufficient permission",
    );
    const id = await create(f.owner, "web", { is_web_public: true, message_retention_days: "unlimited" });
    const { stream } = expectSuccess(await server.api.get(f.guest, `/streams/${id}`));
    assert.equal(stream.is_web_public, true);
    assert.equal(stream.message_retention_days, -1);
    await setRealmSettings(server, { can_create_public_channel_group: groups["role:administrators"] });
    expectError(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "pub2" }] }), "BAD_REQUEST", "Insufficient permission");
    await setRealmSettings(server, { can_create_public_channel_group: groups["role:members"] });
  });

  test("private channels are invisible to non-subscribers, with one error for missing and forbidden", async () => {
    const id = await create(f.member, "secret", { invite_only: true });
    const { stream } = expectSuccess(await server.api.get(f.member, `/streams/${id}`));
    assert.equal(stream.invite_only, true);
    assert.equal(stream.history_public_to_subscribers, false);
    for (const user of [f.moderator, f.guest]) {
      expectError(await server.api.get(user, `/streams/${id}`), "BAD_REQUEST", "Invalid channel ID");
      expectError(await server.api.get(user, `/streams/${id}/members`), "BAD_REQUEST", "Invalid channel ID");
      expectError(await server.api.get(user, "/get_stream_id", { stream: "secret" }), "BAD_REQUEST", "Invalid channel name 'secret'");
      expectError(await server.api.get(user, `/users/me/${id}/topics`), "BAD_REQUEST", "Invalid channel ID");
      assert.ok(!(await names(user)).includes("secret"));
    }
    expectError(await server.api.get(f.moderator, "/streams/99999"), "BAD_REQUEST", "Invalid channel ID");
    // Administrators see a private channel's metadata, not its content.
    assert.equal(expectSuccess(await server.api.get(f.admin, `/streams/${id}`)).stream.name, "secret");
    assert.deepEqual(expectSuccess(await server.api.get(f.admin, `/streams/${id}/members`)).subscribers, [f.member.id]);
    expectError(await server.api.get(f.admin, `/users/me/${id}/topics`), "BAD_REQUEST", "Invalid channel ID");
    assert.ok((await names(f.admin, { include_all: true })).includes("secret"));
    assert.ok(!(await names(f.admin)).includes("secret"));
    expectError(
      await server.api.post(f.moderator, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }] }),
      "BAD_REQUEST",
      "Unable to access channel (secret).",
    );
    const soft = expectSuccess(
      await server.api.post(f.moderator, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }, { name: "general" }], authorization_errors_fatal: false }),
    );
    assert.deepEqual(soft.unauthorized, ["secret"]);
    assert.deepEqual(soft.subscribed, { [String(f.moderator.id)]: ["general"] });
  });

  test("guests see only subscribed and web-public channels", async () => {
    const id = await create(f.member, "guests-welcome", { principals: [f.member.id, f.guest.id] });
    const seen = await names(f.guest);
    assert.ok(seen.includes("guests-welcome"));
    assert.ok(!seen.includes("general"));
    assert.ok((await names(f.guest, { include_web_public: true })).includes("web"));
    expectError(await server.api.get(f.guest, "/get_stream_id", { stream: "general" }), "BAD_REQUEST", "Invalid channel name 'general'");
    assert.deepEqual(expectSuccess(await server.api.get(f.guest, `/users/me/${id}/topics`)).topics, []);
  });

  test("GET /streams filters and validates its flags", async () => {
    const all = expectSuccess(await server.api.get(f.member, "/streams", { include_default: true })).streams;
    assert.deepEqual(all.map((s: { name: string }) => s.name), [...all.map((s: { name: string }) => s.name)].sort());
    assert.ok(all.every((s: { is_default: boolean }) => s.is_default === false));
    const subscribedOnly = await names(f.moderator, { include_public: false });
    assert.deepEqual(subscribedOnly, ["general"]);
    assert.deepEqual(await names(f.moderator, { include_public: false, include_subscribed: false }), []);
    expectError(await server.api.get(f.member, "/streams", { include_public: "maybe" }), "BAD_REQUEST", "include_public is not a boolean");
    const botView = await names(f.bot, { include_public: false, include_owner_subscribed: true });
    assert.ok(botView.includes("secret") && botView.includes("general"));
  });

  test("PATCH /streams/{id} lets channel administrators change name, description and privacy", async () => {
    const id = await create(f.member, "renameme");
    expectSuccess(await server.api.patch(f.member, `/streams/${id}`, { new_name: "renamed", description: "New words" }, { encoding: "query" }));
    const { stream } = expectSuccess(await server.api.get(f.member, `/streams/${id}`));
    assert.equal(stream.name, "renamed");
    assert.equal(stream.rendered_description, "<p>New words</p>");
    expectError(await server.api.patch(f.moderator, `/streams/${id}`, { new_name: "mine" }), "BAD_REQUEST", "You do not have permission to administer this channel.");
    expectError(await server.api.patch(f.guest, `/streams/${id}`, { new_name: "mine" }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.patch(f.member, `/streams/${id}`, { new_name: "renamed" }), "BAD_REQUEST", "Channel already has that name.");
    expectError(await server.api.patch(f.member, `/streams/${id}`, { new_name: "General" }), "BAD_REQUEST", "Channel 'General' already exists");
    await create(f.owner, "owners-only", { invite_only: true });
    expectError(await server.api.patch(f.member, `/streams/${id}`, { new_name: "owners-only" }), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.patch(f.member, `/streams/${id}`, { history_public_to_subscribers: false }), "BAD_REQUEST", "Invalid parameters");
    expectError(await server.api.patch(f.member, `/streams/${id}`, { message_retention_days: 5 }), "BAD_REQUEST", NOT_OWNER);
    expectError(await server.api.patch(f.member, `/streams/${id}`, { description: "d".repeat(1025) }), "BAD_REQUEST", "description is too long (limit: 1024 characters)");
    expectError(
      await server.api.patch(f.member, `/streams/${id}`, { can_remove_subscribers_group: { new: groups["role:members"], old: groups["role:owners"] } }),
      "BAD_REQUEST",
      "'old' value does not match the expected value.",
    );
    expectSuccess(await server.api.patch(f.admin, `/streams/${id}`, { is_private: true }));
    const changed = expectSuccess(await server.api.get(f.member, `/streams/${id}`)).stream;
    assert.deepEqual([changed.name, changed.invite_only, changed.history_public_to_subscribers], ["renamed", true, false]);
    expectSuccess(await server.api.patch(f.member, `/streams/${id}`, { can_remove_subscribers_group: { new: { direct_members: [f.member.id], direct_subgroups: [] } } }));
    const value = expectSuccess(await server.api.get(f.member, `/streams/${id}`)).stream.can_remove_subscribers_group;
    assert.deepEqual(value, { direct_members: [f.member.id], direct_subgroups: [] });
  });

  test("archiving keeps the channel for those who ask for archived channels", async () => {
    const id = await create(f.member, "old-news");
    expectError(await server.api.delete(f.moderator, `/streams/${id}`), "BAD_REQUEST", "You do not have permission to administer this channel.");
    expectSuccess(await server.api.delete(f.admin, `/streams/${id}`));
    expectError(await server.api.delete(f.admin, `/streams/${id}`), "BAD_REQUEST", "Channel is already deactivated");
    expectError(await server.api.get(f.member, `/streams/${id}`), "BAD_REQUEST", "Invalid channel ID");
    assert.ok(!(await names(f.member)).includes("old-news"));
    const archived = expectSuccess(await server.api.get(f.member, "/streams", { exclude_archived: false })).streams.find((s: { name: string }) => s.name === "old-news");
    assert.equal(archived.is_archived, true);
    const subs = expectSuccess(await server.api.get(f.member, "/users/me/subscriptions")).subscriptions;
    assert.ok(!subs.some((s: { name: string }) => s.name === "old-news"));
    expectSuccess(await server.api.patch(f.admin, `/streams/${id}`, { is_archived: false }));
    assert.equal(expectSuccess(await server.api.get(f.member, `/streams/${id}`)).stream.is_archived, false);
    expectError(await server.api.patch(f.admin, `/streams/${id}`, { is_archived: false }), "BAD_REQUEST", "Channel is not currently deactivated");
  });

  test("path ids are validated", async () => {
    expectError(await server.api.get(f.member, "/streams/abc"), "BAD_REQUEST", "stream_id is not an integer");
    expectError(await server.api.get(f.member, "/get_stream_id"), "REQUEST_VARIABLE_MISSING", "Missing 'stream' argument");
  });
});

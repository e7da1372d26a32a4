/** Subscriptions: subscribing others, unsubscribing, listing, personal settings, status. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const PALETTE_START = ["#76ce90", "#fae589", "#a6c7e5"];

describeEachStore("subscriptions", (server) => {
  let f: TestServer["fixtures"];

  async function create(user: TestUser, name: string, extra: Record<string, unknown> = {}): Promise<number> {
    expectSuccess(await server.api.post(user, "/users/me/subscriptions", { subscriptions: [{ name }], ...extra }));
    return expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id;
  }
  async function mySubs(user: TestUser, params: Record<string, unknown> = {}) {
    return expectSuccess(await server.api.get(user, "/users/me/subscriptions", params)).subscriptions as Array<Record<string, unknown>>;
  }
  async function members(id: number): Promise<number[]> {
    return expectSuccess(await server.api.get(f.admin, `/streams/${id}/members`)).subscribers;
  }

  before(async () => {
    f = server.fixtures;
  });

  test("every subscription endpoint needs credentials", async () => {
    const msg = NO_AUTH;
    for (const [method, path] of [
      ["GET", "/users/me/subscriptions"], ["POST", "/users/me/subscriptions"], ["DELETE", "/users/me/subscriptions"],
      ["POST", "/users/me/subscriptions/properties"], ["GET", "/users/1/subscriptions/1"],
    ]) {
      expectError(await server.api.request(method, path, null, {}), "UNAUTHORIZED", msg, 401);
    }
  });

  test("new subscriptions get the first unused palette colors, or the requested one", async () => {
    await create(f.moderator, "c1");
    await create(f.moderator, "c2");
    await create(f.moderator, "c3");
    expectSuccess(await server.api.post(f.moderator, "/users/me/subscriptions", { subscriptions: [{ name: "c4", color: "#123456" }] }));
    const subs = await mySubs(f.moderator);
    assert.deepEqual(subs.map((s) => [s.name, s.color]), [["c1", PALETTE_START[0]], ["c2", PALETTE_START[1]], ["c3", PALETTE_START[2]], ["c4", "#123456"]]);
    const first = subs[0];
    assert.equal(first.is_muted, false);
    assert.equal(first.in_home_view, true);
    assert.equal(first.desktop_notifications, null);
    assert.equal(first.subscribers, undefined);
    const withSubs = await mySubs(f.moderator, { include_subscribers: true });
    assert.deepEqual(withSubs[0].subscribers, [f.moderator.id]);
  });

  test("subscribing others follows can_add_subscribers_group and principals", async () => {
    const id = await create(f.member, "team");
    const res = expectSuccess(
      await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "team" }], principals: [f.guest.email, f.bot.email] }, { encoding: "multipart" }),
    );
    assert.deepEqual(res.subscribed, { [String(f.guest.id)]: ["team"], [String(f.bot.id)]: ["team"] });
    assert.deepEqual(await members(id), [f.member.id, f.guest.id, f.bot.id].sort((a, b) => a - b));
    const priv = await create(f.owner, "owners-room", { invite_only: true });
    expectError(
      await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "owners-room" }], principals: [f.member.id] }),
      "BAD_REQUEST",
      "Unable to access channel (owners-room).",
    );
    // Subscribed members of a private channel may add others (the realm's can_add_subscribers_group).
    expectSuccess(await server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: "owners-room" }], principals: [f.member.id] }));
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "owners-room" }], principals: [f.moderator.id] }));
    assert.deepEqual(await members(priv), [f.owner.id, f.moderator.id, f.member.id].sort((a, b) => a - b));
  });

  test("unsubscribing oneself, and the errors of unsubscribing", async () => {
    const id = await create(f.member, "leaving");
    const del = (user: TestUser, params: Record<string, unknown>) => server.api.delete(user, "/users/me/subscriptions", params, { encoding: "query" });
    expectError(await del(f.member, {}), "REQUEST_VARIABLE_MISSING", "Missing 'subscriptions' argument");
    const missing = await del(f.member, { subscriptions: ["nowhere"] });
    expectError(missing, "STREAM_DOES_NOT_EXIST", "Channel 'nowhere' does not exist");
    assert.equal(missing.body.stream, "nowhere");
    expectError(await del(f.member, { subscriptions: ["leaving"], principals: [99999] }), "BAD_REQUEST", "No such user");
    assert.deepEqual(expectSuccess(await del(f.member, { subscriptions: ["leaving"] })), { result: "success", msg: "", removed: ["leaving"], not_removed: [] });
    assert.deepEqual(expectSuccess(await del(f.member, { subscriptions: ["leaving"] })).not_removed, ["leaving"]);
    assert.deepEqual(await members(id), []);
    // Resubscribing restores the old row and its color.
    expectSuccess(await server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name: "leaving" }] }));
    assert.deepEqual(await members(id), [f.member.id]);
  });

  test("unsubscribing others needs can_remove_subscribers_group, except for one's own bots", async () => {
    const id = await create(f.member, "crowd", { principals: [f.member.id, f.moderator.id, f.bot.id] });
    const del = (user: TestUser, params: Record<string, unknown>) => server.api.delete(user, "/users/me/subscriptions", params);
    expectError(await del(f.moderator, { subscriptions: ["crowd"], principals: [f.member.id] }), "BAD_REQUEST", "Insufficient permission");
    expectError(await del(f.guest, { subscriptions: ["crowd"], principals: [f.moderator.id] }), "BAD_REQUEST", "Insufficient permission");
    assert.deepEqual(await members(id), [f.moderator.id, f.member.id, f.bot.id].sort((a, b) => a - b));
    // The creator administers the channel (can_administer_channel_group defaults to the creator).
    expectSuccess(await del(f.member, { subscriptions: ["crowd"], principals: [f.moderator.id] }));
    expectSuccess(await server.api.post(f.admin, "/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: [f.moderator.id] }));
    const own = await create(f.moderator, "mod-room", { principals: [f.moderator.id, f.bot.id] });
    expectSuccess(await del(f.member, { subscriptions: ["mod-room"], principals: [f.bot.id] }));
    assert.deepEqual(await members(own), [f.moderator.id]);
    expectSuccess(await del(f.admin, { subscriptions: ["crowd"], principals: [f.moderator.email] }));
    assert.deepEqual(await members(id), [f.member.id, f.bot.id].sort((a, b) => a - b));
  });

  test("personal subscription settings change, with Zulip's errors", async () => {
    const id = await create(f.member, "prefs");
    const set = (user: TestUser, data: unknown) => server.api.post(user, "/users/me/subscriptions/properties", { subscription_data: data });
    expectSuccess(await set(f.member, [
      { stream_id: id, property: "color", value: "#abcdef" },
      { stream_id: id, property: "in_home_view", value: false },
      { stream_id: id, property: "pin_to_top", value: true },
      { stream_id: id, property: "desktop_notifications", value: false },
    ]));
    const sub = (await mySubs(f.member)).find((s) => s.stream_id === id);
    assert.deepEqual(
      [sub?.color, sub?.is_muted, sub?.in_home_view, sub?.pin_to_top, sub?.desktop_notifications],
      ["#abcdef", true, false, true, false],
    );
    expectError(await set(f.member, [{ stream_id: id, property: "volume", value: true }]), "BAD_REQUEST", "Unknown subscription property: volume");
    expectError(await set(f.member, [{ stream_id: id, property: "is_muted", value: "yes" }]), "BAD_REQUEST", "is_muted is not a boolean");
    expectError(await set(f.member, [{ stream_id: id, property: "color", value: "blue" }]), "BAD_REQUEST", "color is not a valid hex color code");
    expectError(await set(f.moderator, [{ stream_id: id, property: "pin_to_top", value: true }]), "BAD_REQUEST", `Not subscribed to channel ID ${id}`);
    expectError(await set(f.member, [{ stream_id: 99999, property: "pin_to_top", value: true }]), "BAD_REQUEST", "Invalid channel ID");
    expectError(await set(f.member, [{ property: "pin_to_top", value: true }]), "BAD_REQUEST", 'subscription_data[0]["stream_id"] field is missing');
    // A failing change in a batch writes nothing.
    expectError(await set(f.member, [{ stream_id: id, property: "pin_to_top", value: false }, { stream_id: 99999, property: "pin_to_top", value: true }]), "BAD_REQUEST", "Invalid channel ID");
    assert.equal((await mySubs(f.member)).find((s) => s.stream_id === id)?.pin_to_top, true);
  });

  test("POST /register: a client without notification_settings_null reads the user's channel settings for null ones", async () => {
    const id = await create(f.moderator, "inherit");
    const other = await create(f.moderator, "inherit-left");
    expectSuccess(await server.api.post(f.moderator, "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: id, property: "desktop_notifications", value: false }] }));
    expectSuccess(await server.api.patch(f.moderator, "/settings", { enable_stream_audible_notifications: true, enable_stream_email_notifications: false }));
    expectSuccess(await server.api.delete(f.moderator, "/users/me/subscriptions", { subscriptions: ["inherit-left"] }));
    const NAMES = ["desktop_notifications", "audible_notifications", "push_notifications", "email_notifications", "wildcard_mentions_notify"];
    const settingsOf = (state: Record<string, Array<Record<string, unknown>>>, list: string, streamId: number) =>
      NAMES.map((name) => state[list].find((sub) => sub.stream_id === streamId)?.[name]);
    const old = expectSuccess(await server.api.post(f.moderator, "/register", { fetch_event_types: ["subscription"] }));
    // The subscription's own value stays; null ones take the user's settings (enable_stream_push_notifications is off by default); wildcard_mentions_notify stays null, as upstream.
    assert.deepEqual(settingsOf(old, "subscriptions", id), [false, true, false, false, null]);
    assert.deepEqual(settingsOf(old, "unsubscribed", other), [false, true, false, false, null]);
    const modern = expectSuccess(await server.api.post(f.moderator, "/register", { fetch_event_types: ["subscription"], client_capabilities: { notification_settings_null: true } }));
    assert.deepEqual(settingsOf(modern, "subscriptions", id), [false, null, null, null, null]);
    assert.deepEqual(settingsOf(modern, "unsubscribed", other), [null, null, null, null, null]);
  });

  test("GET /users/{user_id}/subscriptions/{stream_id} tells whether a user is subscribed", async () => {
    const id = await create(f.member, "status");
    expectError(await server.api.get(f.guest, `/users/${f.member.id}/subscriptions/${id}`), "BAD_REQUEST", "Invalid channel ID");
    assert.equal(expectSuccess(await server.api.get(f.moderator, `/users/${f.member.id}/subscriptions/${id}`)).is_subscribed, true);
    assert.equal(expectSuccess(await server.api.get(f.moderator, `/users/${f.admin.id}/subscriptions/${id}`)).is_subscribed, false);
    expectError(await server.api.get(f.moderator, `/users/99999/subscriptions/${id}`), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(f.moderator, `/users/${f.member.id}/subscriptions/99999`), "BAD_REQUEST", "Invalid channel ID");
  });
});

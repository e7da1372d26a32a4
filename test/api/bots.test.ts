/** Bots: POST /bots, GET /bots, PATCH and DELETE /bots/{bot_id}, POST /bots/{bot_id}/api_key/regenerate. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { getRealm, updateRealmSettings } from "../../src/store/realm/realms.ts";
import { getGroupByName } from "../../src/store/groups/user-groups.ts";
import { createUser } from "../helpers/factories.ts";
import { readUser, withStore } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("bots", (server) => {
  const count = async () => expectSuccess(await server.api.get(server.fixtures.owner, "/users")).members.length;

  test("POST /bots creates a bot owned by the caller, with a working API key", async () => {
    const { member } = server.fixtures;
    const body = expectSuccess(await server.api.post(member, "/bots", { full_name: "Weather Bot", short_name: "weather" }, { encoding: "multipart" }));
    assert.deepEqual(Object.keys(body).sort(), [
      "api_key", "avatar_url", "default_all_public_streams", "default_events_register_stream", "default_sending_stream", "msg", "result", "user_id",
    ]);
    const email = `weather-bot@${new URL(server.url).hostname}`;
    const read = await readUser(server, body.user_id);
    assert.equal(read.email, email);
    assert.equal(read.bot_type, 1);
    assert.equal(read.bot_owner_id, member.id);
    assert.equal(read.role, 400);
    const me = expectSuccess(await server.api.get({ email, apiKey: body.api_key }, "/users/me"));
    assert.equal(me.user_id, body.user_id);
  });

  test("POST /bots with an outgoing webhook", async () => {
    const body = expectSuccess(
      await server.api.post(server.fixtures.admin, "/bots", { full_name: "Hook Bot", short_name: "hook", bot_type: 3, payload_url: JSON.stringify("https://example.com/hook"), interface_type: 2 }),
    );
    assert.equal((await readUser(server, body.user_id)).bot_type, 3);
  });

  test("POST /bots refusals and validation errors write nothing", async () => {
    const { member, guest, bot } = server.fixtures;
    const before = await count();
    const ok = { full_name: "Valid Bot", short_name: "valid" };
    expectError(await server.api.post(guest, "/bots", ok), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await server.api.post(bot, "/bots", ok), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await server.api.post(null, "/bots", ok), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(member, "/bots", { short_name: "x" }), "REQUEST_VARIABLE_MISSING", "Missing 'full_name' argument");
    expectError(await server.api.post(member, "/bots", { full_name: "No Short" }), "REQUEST_VARIABLE_MISSING", "Missing 'short_name' argument");
    expectError(await server.api.post(member, "/bots", { ...ok, short_name: "  " }), "BAD_REQUEST", "Bad name or username");
    expectError(await server.api.post(member, "/bots", { ...ok, short_name: "a b" }), "BAD_REQUEST", "Bad name or username");
    expectError(await server.api.post(member, "/bots", { ...ok, full_name: "B" }), "BAD_REQUEST", "Name too short!");
    expectError(await server.api.post(member, "/bots", { ...ok, short_name: "weather" }), "BAD_REQUEST", "Username already in use");
    expectError(await server.api.post(member, "/bots", { ...ok, full_name: "Max Member" }), "BAD_REQUEST", "Name is already in use.");
    expectError(await server.api.post(member, "/bots", { ...ok, bot_type: 4 }), "BAD_REQUEST", "Invalid bot type");
    expectError(await server.api.post(member, "/bots", { ...ok, bot_type: "x" }), "BAD_REQUEST", "bot_type is not an integer");
    expectError(await server.api.post(member, "/bots", { ...ok, bot_type: 3, interface_type: 7 }), "BAD_REQUEST", "Invalid interface type");
    expectError(await server.api.post(member, "/bots", { ...ok, bot_type: 3, payload_url: JSON.stringify("not a url") }), "BAD_REQUEST", "payload_url is not a URL");
    expectError(await server.api.post(member, "/bots", { ...ok, bot_type: 3, payload_url: "https://unquoted" }), "BAD_REQUEST", "payload_url is not valid JSON");
    assert.equal(await count(), before);
  });

  test("can_create_bots_group limits bot creation; write-only bots follow their own setting", async () => {
    const { member } = server.fixtures;
    const setBotsGroup = (name: string) =>
      withStore(server, async (db) => {
        const realm = await getRealm(db, server.fixtures.realmId);
        const group = await getGroupByName(db, server.fixtures.realmId, name);
        if (!realm || !group) throw new Error("fixture realm incomplete");
        await updateRealmSettings(db, realm.id, { ...JSON.parse(realm.settings), can_create_bots_group: group.id });
      });
    await setBotsGroup("role:administrators");
    try {
      expectError(await server.api.post(member, "/bots", { full_name: "Denied Bot", short_name: "denied" }), "BAD_REQUEST", "Insufficient permission");
      expectSuccess(await server.api.post(member, "/bots", { full_name: "Incoming Bot", short_name: "incoming", bot_type: 2 }));
      expectSuccess(await server.api.post(server.fixtures.admin, "/bots", { full_name: "Admin Bot", short_name: "adminbot" }));
    } finally {
      await setBotsGroup("role:members");
    }
  });

  test("GET /bots lists the caller's active bots", async () => {
    const { member, bot, guest } = server.fixtures;
    const body = expectSuccess(await server.api.get(member, "/bots"));
    const names = body.bots.map((b: { full_name: string }) => b.full_name);
    assert.ok(names.includes("Helper Bot"));
    assert.ok(names.includes("Weather Bot"));
    const helper = body.bots.find((b: { full_name: string }) => b.full_name === "Helper Bot");
    assert.equal(helper.username, bot.email);
    assert.equal(helper.api_key, bot.apiKey);
    expectError(await server.api.get(guest, "/bots"), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await server.api.get(null, "/bots"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("PATCH /bots/{bot_id} renames a bot and hands it to a new owner", async () => {
    const person = await createUser(server);
    const created = expectSuccess(await server.api.post(person, "/bots", { full_name: "Patch Bot", short_name: `patch${person.id}` }));
    const id = created.user_id;
    const body = expectSuccess(await server.api.patch(person, `/bots/${id}`, { full_name: "Patched Bot" }));
    assert.equal(body.full_name, "Patched Bot");
    assert.equal(body.bot_owner, person.email);
    expectSuccess(await server.api.patch(person, `/bots/${id}`, { bot_owner_id: server.fixtures.moderator.id }));
    assert.equal((await readUser(server, id)).bot_owner_id, server.fixtures.moderator.id);
    // The previous owner no longer administers it.
    expectError(await server.api.patch(person, `/bots/${id}`, { full_name: "Taken Back" }), "BAD_REQUEST", "Insufficient permission");
  });

  test("PATCH /bots/{bot_id} refusals write nothing", async () => {
    const { member, moderator, admin, bot, guest } = server.fixtures;
    expectError(await server.api.patch(moderator, `/bots/${bot.id}`, { full_name: "Stolen Bot" }), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.patch(guest, `/bots/${bot.id}`, { full_name: "Stolen Bot" }), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await server.api.patch(null, `/bots/${bot.id}`, { full_name: "Stolen Bot" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.patch(member, `/bots/${member.id}`, { full_name: "Not A Bot" }), "BAD_REQUEST", "No such bot");
    expectError(await server.api.patch(member, "/bots/99999", { full_name: "No Bot" }), "BAD_REQUEST", "No such bot");
    expectError(await server.api.patch(member, `/bots/${bot.id}`, { full_name: "X" }), "BAD_REQUEST", "Name too short!");
    expectError(await server.api.patch(member, `/bots/${bot.id}`, { full_name: "Adam Admin" }), "BAD_REQUEST", "Name is already in use.");
    expectError(await server.api.patch(member, `/bots/${bot.id}`, { bot_owner_id: 99999 }), "BAD_REQUEST", "Failed to change owner, no such user");
    expectError(await server.api.patch(member, `/bots/${bot.id}`, { bot_owner_id: bot.id }), "BAD_REQUEST", "Failed to change owner, bots can't own other bots");
    const gone = await createUser(server);
    expectSuccess(await server.api.delete(admin, `/users/${gone.id}`));
    expectError(await server.api.patch(member, `/bots/${bot.id}`, { bot_owner_id: gone.id }), "BAD_REQUEST", "Failed to change owner, user is deactivated");
    const read = await readUser(server, bot.id);
    assert.equal(read.full_name, "Helper Bot");
    assert.equal(read.bot_owner_id, member.id);
  });

  test("DELETE /bots/{bot_id} deactivates a bot its owner or an administrator holds", async () => {
    const { member, moderator, admin } = server.fixtures;
    const created = expectSuccess(await server.api.post(member, "/bots", { full_name: "Doomed Bot", short_name: "doomed" }));
    expectError(await server.api.delete(moderator, `/bots/${created.user_id}`), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.delete(admin, `/bots/${member.id}`), "BAD_REQUEST", "No such bot");
    expectError(await server.api.delete(null, `/bots/${created.user_id}`), "UNAUTHORIZED", NO_AUTH, 401);
    assert.equal((await readUser(server, created.user_id)).is_active, true);
    expectSuccess(await server.api.delete(admin, `/bots/${created.user_id}`));
    assert.equal((await readUser(server, created.user_id)).is_active, false);
    const names = expectSuccess(await server.api.get(member, "/bots")).bots.map((b: { full_name: string }) => b.full_name);
    assert.equal(names.includes("Doomed Bot"), false);
  });

  test("POST /bots/{bot_id}/api_key/regenerate gives the bot a new key", async () => {
    const { member, moderator } = server.fixtures;
    const created = expectSuccess(await server.api.post(member, "/bots", { full_name: "Key Bot", short_name: "keybot" }));
    const email = `keybot-bot@${new URL(server.url).hostname}`;
    expectError(await server.api.post(moderator, `/bots/${created.user_id}/api_key/regenerate`), "BAD_REQUEST", "Insufficient permission");
    expectSuccess(await server.api.get({ email, apiKey: created.api_key }, "/users/me"));
    const body = expectSuccess(await server.api.post(member, `/bots/${created.user_id}/api_key/regenerate`));
    assert.notEqual(body.api_key, created.api_key);
    expectError(await server.api.get({ email, apiKey: created.api_key }, "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
    expectSuccess(await server.api.get({ email, apiKey: body.api_key }, "/users/me"));
  });
});

/** POST /users/me/status and GET /users/{user_id}/status; user_status in /register; user_status events. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { withStore } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("user status", (server) => {
  let partyId: number;
  let goneId: number;
  before(async () => {
    const { realmId, admin } = server.fixtures;
    [partyId, goneId] = await withStore(server, async (db) => {
      const add = async (name: string, deactivated: 0 | 1) =>
        (await db.insertInto("realm_emoji").values({ realm_id: realmId, name, file_name: `${name}.png`, author_id: admin.id, deactivated, is_animated: 0 }).returning("id").executeTakeFirstOrThrow()).id;
      return [await add("party_parrot", 0), await add("old_emoji", 1)];
    });
  });

  const post = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/users/me/status", params);
  async function statusOf(userId: number): Promise<Record<string, unknown>> {
    return expectSuccess(await server.api.get(server.fixtures.guest, `/users/${userId}/status`)).status;
  }

  test("only passed values change; text is trimmed; an emoji name alone takes its code; empty values clear", async () => {
    const { member } = server.fixtures;
    assert.deepEqual(await statusOf(member.id), {});
    expectSuccess(await post(member, { status_text: "   on vacation  " }));
    assert.deepEqual(await statusOf(member.id), { status_text: "on vacation" });
    expectSuccess(await post(member, { emoji_name: "car" }));
    assert.deepEqual(await statusOf(member.id), { status_text: "on vacation", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });
    expectSuccess(await post(member, { away: true }));
    assert.deepEqual(await statusOf(member.id), { away: true, status_text: "on vacation", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });
    const ownSettings = async () => (await registerQueue(server.api, member, { fetch_event_types: ["user_settings"] })).state.user_settings as { presence_enabled: boolean };
    assert.equal((await ownSettings()).presence_enabled, false);
    expectSuccess(await post(member, { emoji_name: "" }));
    assert.deepEqual(await statusOf(member.id), { away: true, status_text: "on vacation" });
    expectSuccess(await post(member, { away: false, status_text: "" }));
    assert.deepEqual(await statusOf(member.id), {});
    assert.equal((await ownSettings()).presence_enabled, true);
    expectSuccess(await post(member, { status_text: "x".repeat(60) }));
    assert.deepEqual(await statusOf(member.id), { status_text: "x".repeat(60) });
    expectSuccess(await post(member, { status_text: "" }));
  });

  test("custom emoji: by name, or by id with its name", async () => {
    const { moderator } = server.fixtures;
    expectSuccess(await post(moderator, { emoji_name: "party_parrot" }));
    assert.deepEqual(await statusOf(moderator.id), { emoji_name: "party_parrot", emoji_code: String(partyId), reaction_type: "realm_emoji" });
    expectSuccess(await post(moderator, { emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" }));
    expectSuccess(await post(moderator, { emoji_name: "party_parrot", emoji_code: String(partyId), reaction_type: "realm_emoji" }));
    assert.deepEqual(await statusOf(moderator.id), { emoji_name: "party_parrot", emoji_code: String(partyId), reaction_type: "realm_emoji" });
    expectSuccess(await post(moderator, { emoji_name: "" }));
  });

  test("validation errors (upstream's messages), each writing nothing", async () => {
    const { admin, bot } = server.fixtures;
    expectSuccess(await post(admin, { status_text: "in a meeting", emoji_name: "car" }));
    const before = await statusOf(admin.id);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, "Client did not pass any new values."],
      [{ status_text: "x".repeat(61) }, "status_text is too long (limit: 60 characters)"],
      [{ status_text: "In a meeting", emoji_code: "1f4bb" }, "Client must pass emoji_name if they pass either emoji_code or reaction_type."],
      [{ status_text: "In a meeting", reaction_type: "unicode_emoji" }, "Client must pass emoji_name if they pass either emoji_code or reaction_type."],
      [{ status_text: "In a meeting", emoji_code: "1f4bb", emoji_name: "invalid" }, "Emoji 'invalid' does not exist"],
      [{ status_text: "In a meeting", emoji_code: "1f4bb", emoji_name: "car" }, "Invalid emoji name."],
      [{ emoji_name: "car", emoji_code: "nothing", reaction_type: "unicode_emoji" }, "Invalid emoji code."],
      [{ status_text: "In a meeting", emoji_code: "1f4bb", emoji_name: "car", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "car", emoji_code: String(partyId), reaction_type: "realm_emoji" }, "Invalid custom emoji name."],
      [{ emoji_name: "old_emoji", emoji_code: String(goneId), reaction_type: "realm_emoji" }, "This custom emoji has been deactivated."],
      [{ emoji_name: "old_emoji" }, "Emoji 'old_emoji' does not exist"],
      [{ emoji_name: "car", emoji_code: "1f697", reaction_type: "odd_emoji" }, "Invalid emoji type."],
      [{ away: "maybe" }, "away is not a boolean"],
    ];
    for (const [params, msg] of bad) expectError(await post(admin, params), "BAD_REQUEST", msg);
    expectError(await post(bot, { status_text: "beep" }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await post(null, { status_text: "anon" }), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await statusOf(admin.id), before);
    assert.deepEqual(before, { status_text: "in a meeting", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });
    expectSuccess(await post(admin, { status_text: "", emoji_name: "" }));
  });

  test("GET: any user may read; unknown users and bots are refused", async () => {
    const { guest, bot, owner } = server.fixtures;
    assert.deepEqual(expectSuccess(await server.api.get(guest, `/users/${owner.id}/status`)), { result: "success", msg: "", status: {} });
    expectError(await server.api.get(guest, "/users/12345/status"), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(guest, `/users/${bot.id}/status`), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(null, `/users/${owner.id}/status`), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("register: user_status holds the statuses that show something", async () => {
    const { guest, owner } = server.fixtures;
    expectSuccess(await post(guest, { status_text: "busy" }));
    expectSuccess(await post(owner, { status_text: "temporary" }));
    expectSuccess(await post(owner, { status_text: "" }));
    const state = (await registerQueue(server.api, owner, { fetch_event_types: ["user_status"] })).state;
    assert.deepEqual(state.user_status, { [String(guest.id)]: { status_text: "busy" } });
    expectSuccess(await post(guest, { status_text: "" }));
  });

  test("events: user_status with the passed keys; away also sends the setting change", async () => {
    const { member, admin } = server.fixtures;
    const types = ["user_status", "user_settings", "update_global_notifications"];
    const watcher = await registerQueue(server.api, admin, { event_types: types, client_capabilities: { notification_settings_null: false, user_settings_object: true } });
    const self = await registerQueue(server.api, member, { event_types: types });
    expectSuccess(await post(member, { status_text: "  out to lunch " }));
    expectSuccess(await post(member, { emoji_name: "car" }));
    expectError(await post(member, { emoji_name: "invalid" }), "BAD_REQUEST", "Emoji 'invalid' does not exist");
    expectSuccess(await post(member, { away: true }));
    expectSuccess(await post(member, { away: false, emoji_name: "", status_text: "" }));
    const statusEvents = [
      { type: "user_status", user_id: member.id, status_text: "out to lunch" },
      { type: "user_status", user_id: member.id, emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" },
      { type: "user_status", user_id: member.id, away: true },
      { type: "user_status", user_id: member.id, away: false, status_text: "", emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" },
    ];
    assert.deepEqual(withoutIds(await pollEvents(server.api, watcher)), statusEvents);
    assert.deepEqual(withoutIds(await pollEvents(server.api, self)), [
      statusEvents[0],
      statusEvents[1],
      { type: "user_settings", op: "update", property: "presence_enabled", value: false },
      { type: "update_global_notifications", user: member.email, notification_name: "presence_enabled", setting: false },
      statusEvents[2],
      { type: "user_settings", op: "update", property: "presence_enabled", value: true },
      { type: "update_global_notifications", user: member.email, notification_name: "presence_enabled", setting: true },
      statusEvents[3],
    ]);
  });
});

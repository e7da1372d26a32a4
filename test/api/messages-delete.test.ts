/** DELETE /messages/{id}: realm and channel permissions, the time limit, nothing left behind, and delete_message events. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, groupId, setRealmSettings, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const TABLES = ["messages", "user_message_flags", "reactions", "submessages"] as const;

describeEachStore("DELETE /messages/{id}", (server) => {
  let generalId: number;
  const send = async (user: Credentials, content = "x", topic = "del") =>
    expectSuccess(await server.api.post(user, "/messages", { type: "stream", to: "general", topic, content })).id as number;
  const del = (user: Credentials | null, id: number) => server.api.delete(user, `/messages/${id}`);
  const exists = async (id: number) => (await withDb(server, (db) => db.selectFrom("messages").select("id").where("id", "=", id).executeTakeFirst())) !== undefined;

  async function refused(user: Credentials | null, id: number, code: string, msg: string, status = 400) {
    const before = await countRows(server, [...TABLES]);
    expectError(await del(user, id), code, msg, status);
    assert.deepEqual(await countRows(server, [...TABLES]), before);
  }

  before(async () => {
    const { owner, admin, moderator, member, guest } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, admin.id, moderator.id, member.id, guest.id] }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
  });

  test("the sender deletes their message with its flags, reactions and search entry", async () => {
    const { member, moderator } = server.fixtures;
    const id = await send(member, "remove @**Mona Moderator** okapi");
    expectSuccess(await server.api.post(moderator, `/messages/${id}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await server.api.post(moderator, "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" }));
    expectSuccess(await del(member, id));
    assert.equal(await exists(id), false);
    const left = await withDb(server, async (db) => ({
      flags: await db.selectFrom("user_message_flags").selectAll().where("message_id", "=", id).execute(),
      reactions: await db.selectFrom("reactions").selectAll().where("message_id", "=", id).execute(),
    }));
    assert.deepEqual(left, { flags: [], reactions: [] });
    const found = expectSuccess(await server.api.get(member, "/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "search", operand: "okapi" }]) }));
    assert.deepEqual(found.messages, []);
    expectError(await server.api.get(member, `/messages/${id}`), "BAD_REQUEST", "Invalid message(s)");
  });

  test("others' messages need can_delete_any_message_group; bot owners may delete their bots' messages", async () => {
    const { member, moderator, admin, bot } = server.fixtures;
    const id = await send(member);
    await refused(moderator, id, "BAD_REQUEST", "You don't have permission to delete this message");
    expectSuccess(await del(admin, id));
    expectSuccess(await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [bot.id] }));
    const botMessage = await send(bot);
    expectSuccess(await del(member, botMessage));
  });

  test("realm can_delete_own_message_group, the channel's groups and the time limit", async () => {
    const { member, moderator } = server.fixtures;
    const admins = await groupId(server, "role:administrators");
    const everyone = await groupId(server, "role:everyone");
    const moderators = await groupId(server, "role:moderators");
    const id = await send(member);
    await setRealmSettings(server, { can_delete_own_message_group: admins });
    try {
      await refused(member, id, "BAD_REQUEST", "You don't have permission to delete this message");
      // The channel-level group grants it back for channel messages.
      await withDb(server, (db) => db.updateTable("streams").set({ can_delete_own_message_group_id: everyone }).where("id", "=", generalId).execute());
      const other = await send(member);
      expectSuccess(await del(member, other));
    } finally {
      await setRealmSettings(server, { can_delete_own_message_group: everyone });
    }
    await withDb(server, (db) => db.updateTable("streams").set({ can_delete_any_message_group_id: moderators }).where("id", "=", generalId).execute());
    expectSuccess(await del(moderator, id));
    await setRealmSettings(server, { message_content_delete_limit_seconds: 60 });
    try {
      const late = await send(member);
      await server.advanceClock(61);
      await refused(member, late, "BAD_REQUEST", "The time limit for deleting this message has passed");
      expectSuccess(await del(server.fixtures.admin, late));
    } finally {
      await setRealmSettings(server, { message_content_delete_limit_seconds: null });
    }
  });

  test("unknown and invisible messages, and no credentials", async () => {
    const { member, owner, moderator } = server.fixtures;
    await refused(member, 999999, "BAD_REQUEST", "Invalid message(s)");
    const dm = expectSuccess(await server.api.post(member, "/messages", { type: "direct", to: JSON.stringify([owner.id]), content: "psst" })).id;
    await refused(moderator, dm, "BAD_REQUEST", "Invalid message(s)");
    await refused(null, dm, "UNAUTHORIZED", NO_AUTH, 401);
    expectSuccess(await del(member, dm));
  });

  test("delete_message events: bulk form, and singletons without bulk_message_deletion", async () => {
    const { member, owner, guest } = server.fixtures;
    const bulk = await registerQueue(server.api, owner, { event_types: JSON.stringify(["delete_message"]), client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true }) });
    const single = await registerQueue(server.api, guest, { event_types: JSON.stringify(["delete_message"]) });
    const id = await send(member, "bye", "events");
    expectSuccess(await del(member, id));
    assert.deepEqual(withoutIds(await pollEvents(server.api, bulk)), [{ type: "delete_message", message_ids: [id], message_type: "stream", stream_id: generalId, topic: "events" }]);
    assert.deepEqual(withoutIds(await pollEvents(server.api, single)), [{ type: "delete_message", message_id: id, message_type: "stream", stream_id: generalId, topic: "events" }]);
    const dm = expectSuccess(await server.api.post(member, "/messages", { type: "direct", to: JSON.stringify([owner.id]), content: "dm" })).id;
    expectSuccess(await del(member, dm));
    assert.deepEqual(withoutIds(await pollEvents(server.api, bulk)), [{ type: "delete_message", message_ids: [dm], message_type: "private" }]);
    assert.deepEqual(await pollEvents(server.api, single), [], "the guest was not in the conversation");
  });
});

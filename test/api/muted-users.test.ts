/**
 * POST/DELETE /users/me/muted_users/{muted_user_id}: Zulip's errors, `muted_users` events and
 * snapshot key, and messages from a muted user arriving (and becoming) read for the muter.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, groupId, setRealmSettings } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { createUser, messageSender } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("muted users", (server) => {
  const mute = (user: Credentials | null, id: number) => server.api.post(user, `/users/me/muted_users/${id}`);
  const unmute = (user: Credentials | null, id: number) => server.api.delete(user, `/users/me/muted_users/${id}`);
  const send = messageSender(server, { read_by_sender: true });
  const flags = async (user: Credentials, id: number): Promise<string[]> => expectSuccess(await server.api.get(user, `/messages/${id}`)).message.flags;
  const mutedList = async (user: Credentials) => (await registerQueue(server.api, user, { fetch_event_types: ["muted_users"] })).state.muted_users;

  before(async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    const principals = [owner.id, admin.id, moderator.id, member.id];
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
  });

  test("muting marks the muted user's unread messages read, and later ones arrive read", async () => {
    const { owner, moderator, member } = server.fixtures;
    const before1 = await send(owner, { type: "stream", to: "lobby", topic: "t", content: "one" });
    const other = await send(moderator, { type: "stream", to: "lobby", topic: "t", content: "not muted" });
    const before2 = await send(owner, { type: "private", to: [member.id], content: "two" });
    const queue = await registerQueue(server.api, member, { event_types: ["muted_users", "update_message_flags", "message"] });
    assert.deepEqual(expectSuccess(await mute(member, owner.id)), { result: "success", msg: "" });
    const events = withoutIds(await pollEvents(server.api, queue));
    assert.equal(events.length, 2);
    assert.deepEqual(events[0], { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [before1, before2], all: false });
    const listed = events[1].muted_users as Array<{ id: number; timestamp: number }>;
    assert.equal(events[1].type, "muted_users");
    assert.deepEqual(listed.map((m) => m.id), [owner.id]);
    assert.ok(Number.isInteger(listed[0].timestamp) && listed[0].timestamp > 1_600_000_000);
    assert.deepEqual(await mutedList(member), listed);
    assert.deepEqual(await flags(member, before1), ["read"]);
    assert.deepEqual(await flags(member, before2), ["read"]);
    assert.deepEqual(await flags(member, other), [], "other senders' messages stay unread");

    // New messages from the muted user arrive read (mentions still flagged); others' do not.
    const after1 = await send(owner, { type: "stream", to: "lobby", topic: "t", content: "hi @**Max Member**" });
    const after2 = await send(owner, { type: "private", to: [member.id], content: "psst" });
    const after3 = await send(moderator, { type: "stream", to: "lobby", topic: "t", content: "still loud" });
    assert.deepEqual(await flags(member, after1), ["read", "mentioned"]);
    assert.deepEqual(await flags(member, after2), ["read"]);
    assert.deepEqual(await flags(member, after3), []);
    assert.deepEqual(await flags(moderator, after1), [], "only the muter is affected");
    const messages = (await pollEvents(server.api, queue)).map((e) => [(e.message as { id: number }).id, e.flags]);
    assert.deepEqual(messages, [
      [after1, ["read", "mentioned"]],
      [after2, ["read"]],
      [after3, []],
    ]);

    // Unmuting: the list empties; new messages are unread again; old ones stay read.
    expectSuccess(await unmute(member, owner.id));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "muted_users", muted_users: [] }]);
    assert.deepEqual(await mutedList(member), []);
    const after4 = await send(owner, { type: "stream", to: "lobby", topic: "t", content: "heard again" });
    assert.deepEqual(await flags(member, after4), []);
    assert.deepEqual(await flags(member, before1), ["read"]);
    await pollEvents(server.api, queue);

    // Muting with nothing unread from them: only the list event.
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [after4], op: "add", flag: "read" }));
    await pollEvents(server.api, queue);
    expectSuccess(await mute(member, owner.id));
    const only = withoutIds(await pollEvents(server.api, queue));
    assert.deepEqual(only.map((e) => e.type), ["muted_users"]);
    expectSuccess(await unmute(member, owner.id));
  });

  test("errors as upstream, each writing nothing; bots and deactivated users may be muted", async () => {
    const { admin, moderator, bot, guest } = server.fixtures;
    expectSuccess(await mute(admin, moderator.id));
    const rows = await countRows(server, ["muted_users"]);
    expectError(await mute(admin, admin.id), "BAD_REQUEST", "Cannot mute self");
    expectError(await mute(admin, 987654), "BAD_REQUEST", "No such user");
    expectError(await mute(admin, moderator.id), "BAD_REQUEST", "User already muted");
    expectError(await unmute(admin, 987654), "BAD_REQUEST", "No such user");
    expectError(await unmute(admin, admin.id), "BAD_REQUEST", "User is not muted");
    expectError(await unmute(admin, guest.id), "BAD_REQUEST", "User is not muted");
    expectError(await mute(null, moderator.id), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await unmute(null, moderator.id), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(admin, "/users/me/muted_users/abc"), "BAD_REQUEST", "muted_user_id is not an integer");
    assert.deepEqual(await countRows(server, ["muted_users"]), rows);

    expectSuccess(await mute(admin, bot.id));
    const gone = await createUser(server, { name: "Gone Person" });
    expectSuccess(await server.api.delete(admin, `/users/${gone.id}`));
    expectSuccess(await mute(admin, gone.id));
    assert.deepEqual(
      ((await mutedList(admin)) as Array<{ id: number }>).map((m) => m.id),
      [moderator.id, bot.id, gone.id],
    );
    for (const id of [moderator.id, bot.id, gone.id]) expectSuccess(await unmute(admin, id));
  });

  test("a guest may not mute a user it cannot access", async () => {
    const { guest, moderator } = server.fixtures;
    await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:members") });
    try {
      expectError(await mute(guest, moderator.id), "BAD_REQUEST", "Insufficient permission");
    } finally {
      await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:everyone") });
    }
    expectSuccess(await mute(guest, moderator.id));
    expectSuccess(await unmute(guest, moderator.id));
  });
});

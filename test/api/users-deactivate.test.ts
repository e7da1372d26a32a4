/** DELETE /users/{user_id}, DELETE /users/me and POST /users/{user_id}/reactivate. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { createUser } from "../helpers/factories.ts";
import { readUser } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_OWNER } from "../helpers/errors.ts";

describeEachStore("users: deactivating and reactivating", (server) => {
  test("an administrator deactivates a user and the bots it owns; the user can no longer log in", async () => {
    const person = await createUser(server);
    const bot = expectSuccess(await server.api.post(person, "/bots", { full_name: "Person Bot", short_name: `pb${person.id}` }));
    expectSuccess(await server.api.delete(server.fixtures.admin, `/users/${person.id}`));
    assert.equal((await readUser(server, person.id)).is_active, false);
    assert.equal((await readUser(server, bot.user_id)).is_active, false);
    expectError(await server.api.get(person, "/users/me"), "UNAUTHORIZED", "Account is deactivated", 401);
    expectError(await server.api.delete(server.fixtures.admin, `/users/${person.id}`), "BAD_REQUEST", "User is deactivated");
  });

  test("a deactivated user leaves its channels' receivers and subscriber lists until reactivated", async () => {
    const { admin } = server.fixtures;
    const person = await createUser(server);
    expectSuccess(await server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: `room${person.id}` }], principals: [admin.id, person.id] }));
    const streamId = expectSuccess(await server.api.get(admin, "/get_stream_id", { stream: `room${person.id}` })).stream_id;
    const members = async () => expectSuccess(await server.api.get(admin, `/streams/${streamId}/members`)).subscribers as number[];
    const count = async () => {
      const subs = expectSuccess(await server.api.get(admin, "/users/me/subscriptions")).subscriptions as Array<{ stream_id: number; subscriber_count: number }>;
      return subs.find((s) => s.stream_id === streamId)?.subscriber_count;
    };
    assert.deepEqual((await members()).sort((a, b) => a - b), [admin.id, person.id].sort((a, b) => a - b));
    assert.equal(await count(), 2);
    expectSuccess(await server.api.delete(admin, `/users/${person.id}`));
    assert.deepEqual(await members(), [admin.id]);
    assert.equal(await count(), 1);
    expectSuccess(await server.api.post(admin, `/users/${person.id}/reactivate`));
    assert.deepEqual((await members()).sort((a, b) => a - b), [admin.id, person.id].sort((a, b) => a - b));
    assert.equal(await count(), 2);
  });

  test("messages sent while a user was deactivated are not received by them after reactivation", async () => {
    const { admin } = server.fixtures;
    const person = await createUser(server);
    const channel = `quiet${person.id}`;
    expectSuccess(await server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: channel }], principals: [admin.id, person.id] }));
    const send = async (content: string) => expectSuccess(await server.api.post(admin, "/messages", { type: "stream", to: channel, topic: "t", content })).id as number;
    const before = await send("before");
    expectSuccess(await server.api.delete(admin, `/users/${person.id}`));
    const during = await send("during");
    expectSuccess(await server.api.post(admin, `/users/${person.id}/reactivate`));
    const after = await send("after");
    const narrow = JSON.stringify([{ operator: "channel", operand: channel }]);
    const read = expectSuccess(await server.api.get(person, "/messages", { anchor: "oldest", num_before: 0, num_after: 10, narrow }));
    const flags = new Map((read.messages as Array<{ id: number; flags: string[] }>).map((m) => [m.id, m.flags]));
    assert.deepEqual(flags.get(before), []);
    assert.deepEqual(flags.get(during), ["read", "historical"]);
    assert.deepEqual(flags.get(after), []);
  });

  test("DELETE /users/{user_id} refusals write nothing", async () => {
    const { owner, admin, member, moderator, guest, bot } = server.fixtures;
    const person = await createUser(server);
    for (const who of [member, moderator, guest]) {
      expectError(await server.api.delete(who, `/users/${person.id}`), "BAD_REQUEST", "Insufficient permission");
    }
    expectError(await server.api.delete(member, `/users/${member.id}`), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.delete(null, `/users/${person.id}`), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.delete(admin, "/users/99999"), "BAD_REQUEST", "No such user");
    expectError(await server.api.delete(admin, `/users/${bot.id}`), "BAD_REQUEST", "No such user");
    expectError(await server.api.delete(admin, "/users/abc"), "BAD_REQUEST", "user_id is not an integer");
    expectError(await server.api.delete(admin, `/users/${owner.id}`), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(await server.api.delete(owner, `/users/${owner.id}`), "BAD_REQUEST", "Cannot deactivate the only organization owner");
    for (const id of [person.id, owner.id, bot.id]) assert.equal((await readUser(server, id)).is_active, true);
  });

  test("DELETE /users/me deactivates the caller, but never the last owner", async () => {
    const person = await createUser(server);
    expectSuccess(await server.api.delete(person, "/users/me"));
    assert.equal((await readUser(server, person.id)).is_active, false);
    const res = await server.api.delete(server.fixtures.owner, "/users/me");
    expectError(res, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only organization owner");
    assert.equal(res.body.is_last_owner, true);
    assert.equal(res.body.entity, "organization owner");
    assert.equal((await readUser(server, server.fixtures.owner.id)).is_active, true);
    expectError(await server.api.delete(null, "/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("POST /users/{user_id}/reactivate restores a user; refusals write nothing", async () => {
    const { admin, member, moderator, guest } = server.fixtures;
    const person = await createUser(server);
    expectError(await server.api.post(admin, `/users/${person.id}/reactivate`), "BAD_REQUEST", "User is already active.");
    expectSuccess(await server.api.delete(admin, `/users/${person.id}`));
    for (const who of [member, moderator, guest]) {
      expectError(await server.api.post(who, `/users/${person.id}/reactivate`), "BAD_REQUEST", "Insufficient permission");
    }
    expectError(await server.api.post(null, `/users/${person.id}/reactivate`), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(admin, "/users/99999/reactivate"), "BAD_REQUEST", "No such user");
    assert.equal((await readUser(server, person.id)).is_active, false);
    expectSuccess(await server.api.post(admin, `/users/${person.id}/reactivate`));
    assert.equal((await readUser(server, person.id)).is_active, true);
    expectSuccess(await server.api.get(person, "/users/me"));
  });

  test("a bot's owner reactivates it unless an active account took its name", async () => {
    const person = await createUser(server);
    const bot = expectSuccess(await server.api.post(person, "/bots", { full_name: "Revived Bot", short_name: `rb${person.id}` }));
    expectSuccess(await server.api.delete(person, `/bots/${bot.user_id}`));
    const other = expectSuccess(await server.api.post(person, "/bots", { full_name: "Revived Bot", short_name: `rb2${person.id}` }));
    expectError(
      await server.api.post(person, `/users/${bot.user_id}/reactivate`),
      "BAD_REQUEST",
      'There is already an active bot named "Revived Bot" in this organization. To reactivate this bot, you must rename or deactivate the other one first.',
    );
    expectSuccess(await server.api.delete(person, `/bots/${other.user_id}`));
    expectSuccess(await server.api.post(person, `/users/${bot.user_id}/reactivate`));
    assert.equal((await readUser(server, bot.user_id)).is_active, true);
  });
});

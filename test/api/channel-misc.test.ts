/** PATCH /users/me/subscriptions (add and delete at once) and GET /streams/{stream_id}/email_address. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { describeEachStore } from "../helpers/suite.ts";

describeEachStore("channel misc", (server) => {
  const streamId = async (user: Credentials, name: string): Promise<number> => expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id;
  const subscribed = async (user: Credentials): Promise<string[]> =>
    (expectSuccess(await server.api.get(user, "/users/me/subscriptions")).subscriptions as Array<{ name: string }>).map((s) => s.name).sort();

  test("PATCH /users/me/subscriptions adds and removes in one call", async () => {
    const { member } = server.fixtures;
    expectSuccess(await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "old-room" }, { name: "kept" }] }));
    const res = expectSuccess(await server.api.patch(member, "/users/me/subscriptions", { add: [{ name: "new-room" }, { name: "kept" }], delete: ["old-room"] }));
    assert.deepEqual(res.subscribed, { [String(member.id)]: ["new-room"] });
    assert.deepEqual(res.already_subscribed, { [String(member.id)]: ["kept"] });
    assert.deepEqual(res.removed, ["old-room"]);
    assert.deepEqual(res.not_removed, []);
    assert.deepEqual(await subscribed(member), ["kept", "new-room"]);
    expectError(await server.api.patch(member, "/users/me/subscriptions", {}), "BAD_REQUEST", 'Nothing to do. Specify at least one of "add" or "delete".');
    expectError(await server.api.patch(member, "/users/me/subscriptions", { delete: ["no-such-room"] }), "STREAM_DOES_NOT_EXIST", "Channel 'no-such-room' does not exist");
  });

  test("GET /streams/{id}/email_address: upstream's format, stable per caller and sender", async () => {
    const { admin, member, owner } = server.fixtures;
    expectSuccess(await server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "Ünïcode Room!" }], principals: [admin.email, member.email] }));
    const id = await streamId(admin, "Ünïcode Room!");
    const first = expectSuccess(await server.api.get(member, `/streams/${id}/email_address`)).email as string;
    assert.match(first, /^ünïcode-room\.[a-z0-9]{32}\.show-sender@[^@]+$/);
    assert.equal(expectSuccess(await server.api.get(member, `/streams/${id}/email_address`)).email, first);
    const mine = expectSuccess(await server.api.get(member, `/streams/${id}/email_address`, { sender_id: member.id })).email as string;
    assert.notEqual(mine, first);
    expectError(await server.api.get(member, `/streams/${id}/email_address`, { sender_id: owner.id }), "BAD_REQUEST", `Invalid user ID: ${owner.id}`);
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "hidden-room" }], invite_only: true }));
    const hidden = await streamId(owner, "hidden-room");
    expectError(await server.api.get(member, `/streams/${hidden}/email_address`), "BAD_REQUEST", "Invalid channel ID");
  });
});

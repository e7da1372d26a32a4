/**
 * GET /messages/{message_id}/read_receipts: readers who share receipts, never the sender, no
 * muting in either direction, no deactivated users; message access and the realm setting.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { setRealmSettings, setUserSettings } from "../helpers/db.ts";
import { createUser, messageSender } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("read receipts", (server) => {
  const send = messageSender(server, { read_by_sender: true });
  const markRead = async (user: Credentials, id: number, op = "add") => expectSuccess(await server.api.post(user, "/messages/flags", { messages: [id], op, flag: "read" }));
  const receipts = (user: Credentials | null, id: number | string) => server.api.get(user, `/messages/${id}/read_receipts`);
  const readers = async (user: Credentials, id: number): Promise<number[]> => expectSuccess(await receipts(user, id)).user_ids;

  before(async () => {
    const { owner, admin, moderator, member, bot } = server.fixtures;
    const principals = [owner.id, admin.id, moderator.id, member.id, bot.id];
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
  });

  test("a new organization is invitation-only, so read receipts start on (upstream's do_create_realm)", async () => {
    const { owner, member } = server.fixtures;
    const state = expectSuccess(await server.api.post(member, "/register", { fetch_event_types: ["realm"] }));
    assert.equal(state.realm_invite_required, true);
    assert.equal(state.realm_enable_read_receipts, true);
    const id = await send(owner, { type: "stream", to: "lobby", topic: "default", content: "receipts by default" });
    await markRead(member, id);
    assert.deepEqual(await readers(owner, id), [member.id]);
  });

  test("readers in id order: the caller when they read it, bots too, never the sender; unread again drops out", async () => {
    const { owner, admin, moderator, member, bot } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "lobby", topic: "r", content: "read me" });
    assert.deepEqual(expectSuccess(await receipts(owner, id)), { result: "success", msg: "", user_ids: [] });
    await markRead(member, id);
    await markRead(moderator, id);
    await markRead(bot, id);
    // The sender starring its own message keeps it out of the list.
    expectSuccess(await server.api.post(owner, "/messages/flags", { messages: [id], op: "add", flag: "starred" }));
    assert.deepEqual(await readers(owner, id), [moderator.id, member.id, bot.id]);
    assert.deepEqual(await readers(member, id), [moderator.id, member.id, bot.id]);
    assert.deepEqual(await readers(admin, id), [moderator.id, member.id, bot.id], "admin has not read it");
    await markRead(moderator, id, "remove");
    assert.deepEqual(await readers(owner, id), [member.id, bot.id]);
  });

  test("send_read_receipts off, muting either way, and deactivation hide a reader", async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    const late = await createUser(server, { name: "Late Reader" });
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals: [late.id] }));
    const id = await send(owner, { type: "stream", to: "lobby", topic: "r", content: "who read this?" });
    for (const user of [admin, moderator, member, late]) await markRead(user, id);
    assert.deepEqual(await readers(owner, id), [admin.id, moderator.id, member.id, late.id]);

    await setUserSettings(server, moderator.id, { send_read_receipts: false });
    assert.deepEqual(await readers(owner, id), [admin.id, member.id, late.id]);
    await setUserSettings(server, moderator.id, { send_read_receipts: true });

    // A reader who muted the caller, and a reader the caller muted, are both left out for the caller only.
    expectSuccess(await server.api.post(member, `/users/me/muted_users/${owner.id}`));
    expectSuccess(await server.api.post(owner, `/users/me/muted_users/${admin.id}`));
    assert.deepEqual(await readers(owner, id), [moderator.id, late.id]);
    assert.deepEqual(await readers(moderator, id), [admin.id, moderator.id, member.id, late.id]);
    expectSuccess(await server.api.delete(member, `/users/me/muted_users/${owner.id}`));
    expectSuccess(await server.api.delete(owner, `/users/me/muted_users/${admin.id}`));

    expectSuccess(await server.api.delete(admin, `/users/${late.id}`));
    assert.deepEqual(await readers(owner, id), [admin.id, moderator.id, member.id]);
  });

  test("access first, then the realm setting; unauthenticated calls are refused", async () => {
    const { owner, admin, member, guest } = server.fixtures;
    const channel = await send(owner, { type: "stream", to: "lobby", topic: "r", content: "public" });
    const direct = await send(owner, { type: "private", to: [member.id], content: "just us" });
    await markRead(member, direct);
    assert.deepEqual(await readers(owner, direct), [member.id]);
    expectError(await receipts(admin, direct), "BAD_REQUEST", "Invalid message(s)");
    expectError(await receipts(guest, channel), "BAD_REQUEST", "Invalid message(s)");
    expectError(await receipts(owner, 99999999), "BAD_REQUEST", "Invalid message(s)");
    expectError(await receipts(owner, "x"), "BAD_REQUEST", "message_id is not an integer");
    expectError(await receipts(null, channel), "UNAUTHORIZED", NO_AUTH, 401);
    await setRealmSettings(server, { enable_read_receipts: false });
    try {
      expectError(await receipts(owner, channel), "BAD_REQUEST", "Read receipts are disabled in this organization.");
      expectError(await receipts(admin, direct), "BAD_REQUEST", "Invalid message(s)");
    } finally {
      await setRealmSettings(server, { enable_read_receipts: true });
    }
  });
});

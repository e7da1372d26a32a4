/**
 * Permission rules checked against upstream Zulip's code (issue 11, item 4):
 * - POST /users needs the administrator role AND can_create_users (zerver/views/users.py
 *   create_user_backend), granted and revoked from the CLI, for users and bots alike;
 * - flags on messages the caller cannot access follow do_update_message_flags exactly: only a
 *   change that would create a "historical" row checks access, so marking read (and removing
 *   starred/collapsed) skips them with 200, while starring, collapsing and marking unread refuse;
 * - a sender unsubscribed from a private channel loses single-message access (has_message_access
 *   needs content access even with a UserMessage row: the fix of CVE-2023-32678), while a narrow,
 *   built on the messages the user received, still shows the message;
 * - include_all_active is the old name of include_all: every channel the caller has metadata
 *   access to, for members too (zulip/zulip#33639 lifted the administrator-only rule).
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, withDb } from "../helpers/db.ts";
import { runCli } from "../helpers/server.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NOT_ADMIN } from "../helpers/errors.ts";
import { sendMessage } from "../helpers/factories.ts";

const NOT_AUTHORIZED = "User not authorized to create users";
const INVALID = "Invalid message(s)";

describeEachStore("permissions as upstream Zulip has them", (server) => {
  let nextUser = 0;
  const subscribe = async (name: string, principals: number[], extra: Record<string, unknown> = {}) =>
    expectSuccess(await server.api.post(server.fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals, ...extra }));
  const streamId = async (user: Credentials, name: string): Promise<number> => expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id;
  const cli = (args: string[]) => runCli(server.store, args);
  const newUser = (creator: Credentials) => {
    nextUser += 1;
    return server.api.post(creator, "/users", { email: `made${nextUser}@example.com`, password: "made-password-1", full_name: `Made Person ${nextUser}` });
  };
  /** A fresh administrator (made by the fixture owner, who holds can_create_users) and its credentials. */
  const freshAdmin = async (): Promise<Credentials & { id: number }> => {
    nextUser += 1;
    const email = `admin${nextUser}@example.com`;
    const { user_id } = expectSuccess(await server.api.post(server.fixtures.owner, "/users", { email, password: "admin-password-1", full_name: `Another Admin ${nextUser}` }));
    expectSuccess(await server.api.patch(server.fixtures.owner, `/users/${user_id}`, { role: 200 }));
    const { api_key } = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: email, password: "admin-password-1" }));
    return { id: user_id, email, apiKey: api_key };
  };

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    await subscribe("general", [owner.id, member.id, moderator.id]);
  });

  describe("POST /users and can_create_users", () => {
    test("an administrator without the permission gets Zulip's 400, and nothing is written", async () => {
      const admin = await freshAdmin();
      const before = await countRows(server, ["users"]);
      expectError(await newUser(admin), "BAD_REQUEST", NOT_AUTHORIZED);
      assert.deepEqual(await countRows(server, ["users"]), before);
    });

    test("the role is checked first: a member holding the permission is still no administrator", async () => {
      const { member } = server.fixtures;
      const granted = await cli(["grant-create-users", "--email", member.email]);
      assert.equal(granted.code, 0, granted.stderr);
      assert.match(granted.stderr, /is not an administrator/);
      expectError(await newUser(member), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    });

    test("granting from the CLI lets the administrator create users; revoking stops it", async () => {
      const admin = await freshAdmin();
      const granted = await cli(["grant-create-users", "--email", admin.email]);
      assert.deepEqual({ code: granted.code, out: JSON.parse(granted.stdout), err: granted.stderr }, { code: 0, out: { user_id: admin.id, email: admin.email, can_create_users: true }, err: "" });
      const made = expectSuccess(await newUser(admin));
      assert.equal(expectSuccess(await server.api.get(admin, `/users/${made.user_id}`)).user.role, 400);
      const revoked = await cli(["revoke-create-users", "--email", admin.email]);
      assert.deepEqual({ code: revoked.code, out: JSON.parse(revoked.stdout) }, { code: 0, out: { user_id: admin.id, email: admin.email, can_create_users: false } });
      expectError(await newUser(admin), "BAD_REQUEST", NOT_AUTHORIZED);
    });

    test("a bot with the administrator role needs the permission too, and may then create users", async () => {
      const { owner, bot } = server.fixtures;
      expectSuccess(await server.api.patch(owner, `/users/${bot.id}`, { role: 200 }));
      expectError(await newUser(bot), "BAD_REQUEST", NOT_AUTHORIZED);
      assert.equal((await cli(["grant-create-users", "--email", bot.email])).code, 0);
      expectSuccess(await newUser(bot));
      expectSuccess(await server.api.patch(owner, `/users/${bot.id}`, { role: 400 }));
    });

    test("the permission is stored on the user row, off by default (the member was granted it above)", async () => {
      const { owner, admin, member } = server.fixtures;
      const admin2 = await freshAdmin();
      const rows = await withDb(server, (db) => db.selectFrom("users").select(["id", "can_create_users"]).where("id", "in", [owner.id, admin.id, member.id, admin2.id]).orderBy("id").execute());
      assert.deepEqual(rows.map((r) => [r.id, Number(r.can_create_users)]), [[owner.id, 1], [admin.id, 1], [member.id, 1], [admin2.id, 0]]);
    });
  });

  describe("POST /messages/flags on messages the caller cannot access", () => {
    let secret: number;
    let direct: number;
    const MISSING = 999_999;
    const setFlag = (user: Credentials, id: number, op: string, flag: string) => server.api.post(user, "/messages/flags", { messages: [id], op, flag });
    const flagRows = (userId: number) => withDb(server, (db) => db.selectFrom("user_message_flags").select(["message_id"]).where("user_id", "=", userId).execute());

    before(async () => {
      const { member, moderator } = server.fixtures;
      await subscribe("secret", [member.id, moderator.id], { invite_only: true });
      secret = await sendMessage(server, member, { type: "stream", to: "secret", topic: "hush", content: "private" });
      direct = await sendMessage(server, member, { type: "direct", to: JSON.stringify([moderator.id]), content: "between us" });
    });

    // [flag, op, expected for a private channel's message, a direct message between others, a missing id]
    const cases: Array<[string, string, "ok" | "invalid", "ok" | "invalid", "ok" | "invalid"]> = [
      // read|historical is what a row-less message already has: nothing to change, no access check.
      ["read", "add", "ok", "ok", "ok"],
      // Unsubscribed channels' messages are skipped (never unread); the rest would need a row.
      ["read", "remove", "ok", "invalid", "invalid"],
      ["starred", "add", "invalid", "invalid", "invalid"],
      ["starred", "remove", "ok", "ok", "ok"],
      ["collapsed", "add", "invalid", "invalid", "invalid"],
      ["collapsed", "remove", "ok", "ok", "ok"],
    ];
    for (const [flag, op, onSecret, onDirect, onMissing] of cases) {
      test(`${op} ${flag}: private channel ${onSecret}, others' direct message ${onDirect}, missing id ${onMissing}`, async () => {
        const { owner } = server.fixtures;
        for (const [id, expected] of [[secret, onSecret], [direct, onDirect], [MISSING, onMissing]] as const) {
          const res = await setFlag(owner, id, op, flag);
          if (expected === "ok") assert.deepEqual(expectSuccess(res).messages, [id]);
          else expectError(res, "BAD_REQUEST", INVALID);
        }
        assert.deepEqual(await flagRows(owner.id), [], "no row is ever written for them");
      });
    }

    test("a subscriber who never received a protected-history message cannot mark it unread, only read", async () => {
      const { owner, member } = server.fixtures;
      await subscribe("vault", [member.id], { invite_only: true, history_public_to_subscribers: false });
      const old = await sendMessage(server, member, { type: "stream", to: "vault", topic: "t", content: "before you came" });
      expectSuccess(await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "vault" }], principals: [owner.id] }));
      expectError(await setFlag(owner, old, "remove", "read"), "BAD_REQUEST", INVALID);
      expectError(await setFlag(owner, old, "add", "starred"), "BAD_REQUEST", INVALID);
      expectSuccess(await setFlag(owner, old, "add", "read"));
      assert.deepEqual(await flagRows(owner.id), []);
    });
  });

  describe("a sender unsubscribed from a private channel", () => {
    test("loses GET /messages/{id}, its history and reactions, as in Zulip; a narrow still shows what they received", async () => {
      const { member, moderator } = server.fixtures;
      for (const [name, historyPublic] of [["club", false], ["shared club", true]] as const) {
        await subscribe(name, [member.id, moderator.id], { invite_only: true, history_public_to_subscribers: historyPublic });
        const id = await sendMessage(server, member, { type: "stream", to: name, topic: "mine", content: "my own words" });
        const channel = await streamId(member, name);
        expectSuccess(await server.api.get(member, `/messages/${id}`));
        expectSuccess(await server.api.delete(member, "/users/me/subscriptions", { subscriptions: JSON.stringify([name]) }));
        expectError(await server.api.get(member, `/messages/${id}`), "BAD_REQUEST", INVALID);
        expectError(await server.api.get(member, `/messages/${id}/history`), "BAD_REQUEST", INVALID);
        expectError(await server.api.post(member, `/messages/${id}/reactions`, { emoji_name: "smile" }), "BAD_REQUEST", INVALID);
        expectError(await server.api.patch(member, `/messages/${id}`, { content: "after leaving" }), "BAD_REQUEST", INVALID);
        // Subscribers keep every access.
        expectSuccess(await server.api.get(moderator, `/messages/${id}`));
        // Zulip's narrow reads the user's own UserMessage rows for a channel they cannot read.
        const narrow = JSON.stringify([{ operator: "channel", operand: channel }]);
        const found = expectSuccess(await server.api.get(member, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow })).messages;
        assert.deepEqual(found.map((m: { id: number }) => m.id), [id], name);
      }
    });
  });

  describe("GET /streams?include_all_active=true", () => {
    const names = async (user: Credentials, params: Record<string, unknown>): Promise<string[]> =>
      expectSuccess(await server.api.get(user, "/streams", params)).streams.map((s: { name: string }) => s.name);

    test("is include_all: the channels the caller has metadata access to, for members as for administrators", async () => {
      const { owner, admin, member, guest } = server.fixtures;
      await subscribe("hidden", [owner.id], { invite_only: true });
      for (const user of [member, admin, guest]) {
        assert.deepEqual(await names(user, { include_all_active: true }), await names(user, { include_all: true }));
      }
      const memberView = await names(member, { include_all_active: true });
      assert.ok(memberView.includes("general"));
      assert.ok(!memberView.includes("hidden"), "no private channel the member cannot see");
      assert.ok((await names(admin, { include_all_active: true })).includes("hidden"), "administrators see every channel");
      assert.deepEqual(await names(guest, { include_all_active: true }), [], "guests: only channels they are subscribed to");
      expectError(await server.api.get(member, "/streams", { include_all_active: "maybe" }), "BAD_REQUEST", "include_all_active is not a boolean");
    });
  });
});

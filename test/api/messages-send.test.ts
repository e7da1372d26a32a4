/** POST /messages: addressing, content and topic rules, permissions, and that refusals write nothing. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, groupId, setRealmSettings, withDb } from "../helpers/db.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const TABLES = ["messages", "user_message_flags", "direct_groups", "direct_group_members", "user_topics"] as const;

describeEachStore("POST /messages", (server) => {
  let generalId: number;
  const send = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/messages", params);
  const stored = (id: number) => withDb(server, (db) => db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow());

  /** Asserts the call fails as given and leaves every message table as it was. */
  async function refused(user: Credentials | null, params: Record<string, unknown>, code: string, msg: string, status = 400, extra: Record<string, unknown> = {}) {
    const before = await countRows(server, [...TABLES]);
    const res = await send(user, params);
    expectError(res, code, msg, status);
    for (const [key, value] of Object.entries(extra)) assert.deepEqual(res.body[key], value);
    assert.deepEqual(await countRows(server, [...TABLES]), before);
  }

  before(async () => {
    const { owner, member, moderator, admin } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id, admin.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
  });

  test("a channel message by name, JSON name, id and [id], with every type alias", async () => {
    const { member } = server.fixtures;
    const tos: Array<[string, unknown]> = [["stream", "general"], ["channel", JSON.stringify("general")], ["stream", generalId], ["channel", JSON.stringify([generalId])]];
    for (const [type, to] of tos) {
      const body = expectSuccess(await send(member, { type, to, topic: "aliases", content: `to ${String(to)}` }));
      const row = await stored(body.id);
      assert.equal(row.stream_id, generalId);
      assert.equal(row.topic, "aliases");
      assert.equal(row.content, `to ${String(to)}`);
      assert.equal(row.sender_id, member.id);
    }
  });

  test("the deprecated subject alias; both names at once are refused", async () => {
    const { member } = server.fixtures;
    const body = expectSuccess(await send(member, { type: "stream", to: "general", subject: "legacy", content: "x" }));
    assert.equal((await stored(body.id)).topic, "legacy");
    await refused(member, { type: "stream", to: "general", subject: "a", topic: "b", content: "x" }, "REQUEST_CONFUSING_VAR", "Can't decide between 'topic' and 'subject' arguments");
  });

  test("no credentials: 401", async () => {
    await refused(null, { type: "stream", to: "general", topic: "t", content: "x" }, "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("validation errors with Zulip's wording", async () => {
    const { member } = server.fixtures;
    await refused(member, { type: "bogus", to: "general", topic: "t", content: "x" }, "BAD_REQUEST", "Invalid type");
    await refused(member, { to: "general", topic: "t", content: "x" }, "REQUEST_VARIABLE_MISSING", "Missing 'type' argument");
    await refused(member, { type: "stream", topic: "t", content: "x" }, "REQUEST_VARIABLE_MISSING", "Missing 'to' argument");
    await refused(member, { type: "stream", to: "general", topic: "t" }, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
    await refused(member, { type: "stream", to: "general", content: "x" }, "BAD_REQUEST", "Missing topic");
    await refused(member, { type: "stream", to: "general", topic: "t", content: " \n " }, "BAD_REQUEST", "Message must not be empty");
    await refused(member, { type: "stream", to: "general", topic: "t", content: "a\u0000b" }, "BAD_REQUEST", "Message must not contain null bytes");
    await refused(member, { type: "stream", to: "general", topic: "Test\n\rTopic", content: "x" }, "BAD_REQUEST", "Invalid character in topic, at position 5!");
    await refused(member, { type: "stream", to: JSON.stringify([1, 2]), topic: "t", content: "x" }, "BAD_REQUEST", "Expected exactly one channel");
    await refused(member, { type: "stream", to: "general", topic: "t", content: "x", queue_id: "q" }, "REQUEST_VARIABLE_MISSING", "Missing 'local_id' argument");
  });

  test("unknown channels: STREAM_DOES_NOT_EXIST with the name or id", async () => {
    const { member } = server.fixtures;
    await refused(member, { type: "stream", to: "nowhere", topic: "t", content: "x" }, "STREAM_DOES_NOT_EXIST", "Channel 'nowhere' does not exist", 400, { stream: "nowhere" });
    await refused(member, { type: "stream", to: "<b>&", topic: "t", content: "x" }, "STREAM_DOES_NOT_EXIST", "Channel '&lt;b&gt;&amp;' does not exist", 400, { stream: "&lt;b&gt;&amp;" });
    await refused(member, { type: "stream", to: 99999, topic: "t", content: "x" }, "STREAM_DOES_NOT_EXIST", "Channel with ID '99999' does not exist", 400, { stream_id: 99999 });
  });

  test("content is trimmed and truncated; topics are trimmed and truncated", async () => {
    const { member } = server.fixtures;
    const trimmed = expectSuccess(await send(member, { type: "stream", to: "general", topic: "  spaced  ", content: "\n\n  hello  \n \n" }));
    const row = await stored(trimmed.id);
    assert.equal(row.content, "  hello");
    assert.equal(row.topic, "spaced");
    await setRealmSettings(server, { max_message_length: 30 });
    const long = expectSuccess(await send(member, { type: "stream", to: "general", topic: "A".repeat(61), content: "B".repeat(31) }));
    await setRealmSettings(server, { max_message_length: 10000 });
    const longRow = await stored(long.id);
    assert.equal(longRow.content, "B".repeat(10) + "\n[message truncated]");
    assert.equal(longRow.topic, "A".repeat(57) + "...");
  });

  test("(no topic) and the empty-topic display name mean the empty topic; required topics refuse it", async () => {
    const { member } = server.fixtures;
    for (const topic of ["", "(no topic)", "general chat"]) {
      const body = expectSuccess(await send(member, { type: "stream", to: "general", topic, content: "x" }));
      assert.equal((await stored(body.id)).topic, "");
    }
    await setRealmSettings(server, { topics_policy: "disable_empty_topic" });
    for (const topic of ["", "(no topic)", "general chat"]) {
      await refused(member, { type: "stream", to: "general", topic, content: "x" }, "BAD_REQUEST", "Topics are required in this organization");
    }
    await setRealmSettings(server, { topics_policy: "allow_empty_topic", mandatory_topics: true });
    await refused(member, { type: "stream", to: "general", topic: "", content: "x" }, "BAD_REQUEST", "Topics are required in this organization");
    await setRealmSettings(server, { mandatory_topics: false });
  });

  test("who may post: private channels, guests, can_send_message_group, archived channels", async () => {
    const { member, guest, owner, bot } = server.fixtures;
    await refused(member, { type: "stream", to: "secret", topic: "t", content: "x" }, "BAD_REQUEST", "Not authorized to send to channel 'secret'");
    await refused(guest, { type: "stream", to: "general", topic: "t", content: "x" }, "BAD_REQUEST", "Not authorized to send to channel 'general'");
    // Public channels accept non-subscribers who are not guests; a bot may post where its owner may.
    expectSuccess(await send(owner, { type: "stream", to: "secret", topic: "t", content: "mine" }));
    expectSuccess(await send(bot, { type: "stream", to: "general", topic: "t", content: "bot" }));
    const admins = await groupId(server, "role:administrators");
    await withDb(server, (db) => db.updateTable("streams").set({ can_send_message_group_id: admins }).where("id", "=", generalId).execute());
    await refused(member, { type: "stream", to: "general", topic: "t", content: "x" }, "BAD_REQUEST", "You do not have permission to post in this channel.");
    await refused(bot, { type: "stream", to: "general", topic: "t", content: "x" }, "BAD_REQUEST", "You do not have permission to post in this channel.");
    expectSuccess(await send(owner, { type: "stream", to: "general", topic: "t", content: "admins only" }));
    const everyone = await groupId(server, "role:everyone");
    await withDb(server, (db) => db.updateTable("streams").set({ can_send_message_group_id: everyone }).where("id", "=", generalId).execute());
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "old" }] }));
    expectSuccess(await server.api.delete(owner, `/streams/${expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "old" })).stream_id}`));
    await refused(owner, { type: "stream", to: "old", topic: "t", content: "x" }, "BAD_REQUEST", "Not authorized to send to channel 'old'");
  });

  test("direct messages by ids, emails and a plain list; to oneself; to a group; one conversation per set of users", async () => {
    const { member, owner, moderator } = server.fixtures;
    const a = expectSuccess(await send(member, { type: "direct", to: JSON.stringify([owner.id]), content: "1" }));
    const b = expectSuccess(await send(owner, { type: "private", to: JSON.stringify([member.email]), content: "2" }));
    const c = expectSuccess(await send(member, { type: "direct", to: owner.email, content: "3" }));
    const rows = await Promise.all([a.id, b.id, c.id].map(stored));
    assert.equal(new Set(rows.map((r) => r.recipient_id)).size, 1, "both directions share recipient_id (FL 327)");
    assert.ok(rows.every((r) => r.stream_id === null && r.topic === ""));
    const self = await stored(expectSuccess(await send(member, { type: "direct", to: JSON.stringify([member.id]), content: "note" })).id);
    const selfAgain = await stored(expectSuccess(await send(member, { type: "direct", to: JSON.stringify([]).replace("[]", `[${member.id}]`), content: "note 2" })).id);
    assert.equal(self.recipient_id, selfAgain.recipient_id);
    assert.notEqual(self.recipient_id, rows[0].recipient_id);
    const group = await stored(expectSuccess(await send(member, { type: "direct", to: `${owner.email},${moderator.email}`, content: "group" })).id);
    const groupAgain = await stored(expectSuccess(await send(moderator, { type: "direct", to: JSON.stringify([owner.id, member.id, moderator.id]), content: "again" })).id);
    assert.equal(group.recipient_id, groupAgain.recipient_id);
  });

  test("bad direct-message recipients", async () => {
    const { member, owner } = server.fixtures;
    await refused(member, { type: "direct", to: "", content: "x" }, "BAD_REQUEST", "Message must have recipients");
    await refused(member, { type: "direct", to: "[]", content: "x" }, "BAD_REQUEST", "Message must have recipients");
    await refused(member, { type: "direct", to: "nobody@example.com", content: "x" }, "BAD_REQUEST", "Invalid email 'nobody@example.com'");
    await refused(member, { type: "direct", to: JSON.stringify([99999]), content: "x" }, "BAD_REQUEST", "Invalid user ID 99999");
    await refused(member, { type: "direct", to: JSON.stringify([owner.id, owner.email]), content: "x" }, "BAD_REQUEST", "Recipient lists may contain emails or user IDs, but not both.");
    await refused(member, { type: "direct", to: JSON.stringify({ a: 1 }), content: "x" }, "BAD_REQUEST", "Invalid data type for recipients");
  });

  test("recipients are named by their API email: the dummy address when the real one is hidden", async () => {
    const { member, moderator } = server.fixtures;
    await withDb(server, (db) => db.updateTable("users").set({ email_address_visibility: 3 }).where("id", "=", moderator.id).execute());
    const id = expectSuccess(await send(member, { type: "direct", to: `user${moderator.id}@127.0.0.1`, content: "hidden address" })).id;
    assert.equal((await stored(id)).sender_id, member.id);
    await refused(member, { type: "direct", to: moderator.email, content: "x" }, "BAD_REQUEST", `Invalid email '${moderator.email}'`);
    await withDb(server, (db) => db.updateTable("users").set({ email_address_visibility: 1 }).where("id", "=", moderator.id).execute());
  });

  test("a deactivated recipient is refused", async () => {
    const { member, owner, admin } = server.fixtures;
    const created = expectSuccess(await server.api.post(owner, "/users", { email: "gone@example.com", password: "gone-password-1", full_name: "Gone User" }));
    expectSuccess(await server.api.delete(admin, `/users/${created.user_id}`));
    await refused(member, { type: "direct", to: JSON.stringify([created.user_id]), content: "x" }, "BAD_REQUEST", "'gone@example.com' is no longer using Zulip.");
    await refused(member, { type: "direct", to: JSON.stringify([owner.id, created.user_id]), content: "x" }, "BAD_REQUEST", "'gone@example.com' is no longer using Zulip.");
  });

  test("guests may message only users they can access", async () => {
    const { guest, member, owner, moderator } = server.fixtures;
    expectSuccess(await send(guest, { type: "direct", to: JSON.stringify([member.id]), content: "hello" }));
    const members = await groupId(server, "role:members");
    await setRealmSettings(server, { can_access_all_users_group: members });
    await refused(guest, { type: "direct", to: JSON.stringify([moderator.id]), content: "x" }, "BAD_REQUEST", "You do not have permission to access some of the recipients.");
    // A direct conversation gives access, as in Zulip.
    expectSuccess(await send(guest, { type: "direct", to: JSON.stringify([member.id]), content: "again" }));
    // Sharing a channel gives access.
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "with-guest" }], principals: [owner.id, guest.id] }));
    expectSuccess(await send(guest, { type: "direct", to: JSON.stringify([owner.id]), content: "hi" }));
    await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:everyone") });
  });

  test("direct_message_permission_group and direct_message_initiator_group", async () => {
    const { member, moderator, owner, bot, admin } = server.fixtures;
    await setRealmSettings(server, { direct_message_permission_group: await groupId(server, "role:nobody") });
    await refused(member, { type: "direct", to: JSON.stringify([moderator.id]), content: "x" }, "BAD_REQUEST", "Direct messages are disabled in this organization.");
    // Bots and oneself need no permission.
    expectSuccess(await send(member, { type: "direct", to: JSON.stringify([bot.id]), content: "to my bot" }));
    expectSuccess(await send(member, { type: "direct", to: JSON.stringify([member.id]), content: "self" }));
    await setRealmSettings(server, { direct_message_permission_group: await groupId(server, "role:administrators") });
    await refused(member, { type: "direct", to: JSON.stringify([moderator.id]), content: "x" }, "BAD_REQUEST", "This conversation does not include any users who can authorize it.");
    expectSuccess(await send(member, { type: "direct", to: JSON.stringify([owner.id]), content: "an owner authorizes it" }));
    await setRealmSettings(server, { direct_message_permission_group: await groupId(server, "role:everyone"), direct_message_initiator_group: await groupId(server, "role:administrators") });
    await refused(member, { type: "direct", to: JSON.stringify([moderator.id, admin.id]), content: "x" }, "BAD_REQUEST", "You do not have permission to initiate direct message conversations.");
    expectSuccess(await send(admin, { type: "direct", to: JSON.stringify([moderator.id, member.id]), content: "started by an admin" }));
    expectSuccess(await send(member, { type: "direct", to: JSON.stringify([moderator.id, admin.id]), content: "a reply" }));
    await setRealmSettings(server, { direct_message_initiator_group: await groupId(server, "role:everyone") });
  });

  test("wildcard mentions past the threshold need can_mention_many_users_group", async () => {
    const { member, owner, moderator } = server.fixtures;
    await setRealmSettings(server, { wildcard_mention_threshold: 2 });
    await refused(member, { type: "stream", to: "general", topic: "w", content: "@**all** hi" }, "STREAM_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use channel wildcard mentions in this channel.");
    // Silent wildcards are not mentions.
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "w", content: "@_**all** hi" }));
    expectSuccess(await send(owner, { type: "stream", to: "general", topic: "w", content: "@**everyone** hi" }));
    // Topic participants: member and owner so far, plus moderator sending now makes three.
    await refused(moderator, { type: "stream", to: "general", topic: "w", content: "@**topic** hi" }, "TOPIC_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use topic wildcard mentions in this topic.");
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "w", content: "@**topic** two of us" }));
    expectSuccess(await send(owner, { type: "stream", to: "general", topic: "w", content: "@**topic** allowed" }));
    await setRealmSettings(server, { wildcard_mention_threshold: 15 });
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "w2", content: "@**all** small channel" }));
  });

  test("mentioning a group the sender may not mention is refused", async () => {
    const { member, owner } = server.fixtures;
    const nobody = await groupId(server, "role:nobody");
    await withDb(server, (db) =>
      db.insertInto("user_groups").values({ realm_id: server.fixtures.realmId, name: "support", description: "", is_system_group: 0, deactivated: 0, date_created: 0, creator_id: owner.id, can_mention_group_id: nobody, can_add_members_group_id: nobody, can_join_group_id: nobody, can_leave_group_id: nobody, can_manage_group_id: nobody, can_remove_members_group_id: nobody }).execute(),
    );
    await refused(member, { type: "stream", to: "general", topic: "g", content: "hi @*support*" }, "BAD_REQUEST", "You are not allowed to mention user group 'support'.");
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "g", content: "silently @_*support*" }));
  });

  test("rendered content is stored: mentions, /me, links", async () => {
    const { member, owner } = server.fixtures;
    const body = expectSuccess(await send(member, { type: "stream", to: "general", topic: "render", content: "/me waves at @**Olivia Owner** https://example.com" }));
    const row = await stored(body.id);
    assert.equal(row.is_me_message, 1);
    assert.equal(row.has_link, 1);
    assert.match(row.rendered_content, new RegExp(`<span class="user-mention" data-user-id="${owner.id}">@Olivia Owner</span>`));
  });
});

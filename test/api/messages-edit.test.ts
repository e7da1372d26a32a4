/** PATCH /messages/{id}: content edits, topic edits, resolving, channel moves, their limits, and that refusals write nothing. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, groupId, setRealmSettings, withDb } from "../helpers/db.ts";
import { readMessage } from "./messages-edit-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { sendStreamMessage, sendDirectMessage } from "../helpers/factories.ts";

const TABLES = ["messages", "user_message_flags", "user_topics"] as const;
const WEEK = 604800;

describeEachStore("PATCH /messages/{id}", (server) => {
  let generalId: number;
  let otherId: number;
  let secretId: number;

  const read = (user: Credentials, id: number) => readMessage(server.api, user, id);
  const row = (id: number) => withDb(server, (db) => db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow());
  const maybeRow = (id: number) => withDb(server, (db) => db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst());
  const edit = (user: Credentials | null, id: number, params: Record<string, unknown>) => server.api.patch(user, `/messages/${id}`, params);

  /** Asserts the edit fails as given and changes no row of the message tables. */
  async function refused(user: Credentials | null, id: number, params: Record<string, unknown>, code: string, msg: string, status = 400) {
    const before = await countRows(server, [...TABLES]);
    const rowBefore = await maybeRow(id);
    const res = await edit(user, id, params);
    expectError(res, code, msg, status);
    assert.deepEqual(await countRows(server, [...TABLES]), before);
    assert.deepEqual(await maybeRow(id), rowBefore);
    return res;
  }

  before(async () => {
    const { owner, admin, moderator, member, guest } = server.fixtures;
    const subscribe = async (name: string, principals: number[], extra: Record<string, unknown> = {}) =>
      expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals: [owner.id, ...principals], ...extra }));
    await subscribe("general", [admin.id, moderator.id, member.id, guest.id]);
    await subscribe("other", [member.id]);
    await subscribe("secret", [member.id], { invite_only: true });
    const id = async (name: string) => expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: name })).stream_id as number;
    [generalId, otherId, secretId] = [await id("general"), await id("other"), await id("secret")];
  });

  test("the sender edits content: row, rendering, FL 365 timestamps and edit history", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "content", "first *draft*");
    await server.advanceClock(30);
    const body = expectSuccess(await edit(member, id, { content: "second **version**" }));
    assert.deepEqual(body.detached_uploads, []);
    const message = await read(member, id);
    assert.equal(message.content, "<p>second <strong>version</strong></p>");
    assert.equal(message.last_edit_timestamp, message.timestamp + 30);
    assert.equal(message.last_moved_timestamp, undefined);
    assert.deepEqual(message.edit_history, [
      { user_id: member.id, timestamp: message.timestamp + 30, prev_content: "first *draft*", prev_rendered_content: "<p>first <em>draft</em></p>" },
    ]);
    const raw = await readMessage(server.api, member, id, { apply_markdown: false });
    assert.equal(raw.content, "second **version**");
  });

  test("blank content becomes (deleted); a content edit updates search", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "search", "findable zebra");
    expectSuccess(await edit(member, id, { content: "giraffe now" }));
    const search = (word: string) => server.api.get(member, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: "search", operand: word }]) });
    const ids = async (word: string) => expectSuccess(await search(word)).messages.map((m: { id: number }) => m.id);
    assert.ok((await ids("giraffe")).includes(id));
    assert.ok(!(await ids("zebra")).includes(id));
    expectSuccess(await edit(member, id, { content: "   " }));
    assert.equal((await row(id)).content, "(deleted)");
  });

  test("no credentials: 401", async () => {
    const id = await sendStreamMessage(server, server.fixtures.member, "general", "auth", "x");
    await refused(null, id, { content: "y" }, "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("validation errors with upstream's wording", async () => {
    const { member, owner } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "validation", "x");
    const dm = await sendDirectMessage(server, member, [owner.id], "a direct message");
    await refused(member, id, {}, "BAD_REQUEST", "Nothing to change");
    await refused(member, id, { topic: "validation" }, "BAD_REQUEST", "Nothing to change");
    await refused(member, id, { content: "y", propagate_mode: "change_all" }, "BAD_REQUEST", "Invalid propagate_mode without topic edit");
    await refused(member, id, { topic: "t", propagate_mode: "sideways" }, "BAD_REQUEST", "Invalid propagate_mode");
    await refused(member, id, { content: "y", stream_id: otherId }, "BAD_REQUEST", "Cannot change message content while changing channel");
    await refused(member, id, { topic: "✔" }, "BAD_REQUEST", "General chat cannot be marked as resolved");
    await refused(member, id, { topic: "✔ general chat" }, "BAD_REQUEST", "General chat cannot be marked as resolved");
    await refused(member, id, { topic: "bad\u0007topic" }, "BAD_REQUEST", "Invalid character in topic, at position 4!");
    await refused(member, id, { stream_id: "x" }, "BAD_REQUEST", "stream_id is not an integer");
    await refused(member, id, { topic: "a", subject: "b" }, "REQUEST_CONFUSING_VAR", "Can't decide between 'topic' and 'subject' arguments");
    await refused(member, dm, { topic: "t" }, "BAD_REQUEST", "Direct messages cannot have topics.");
    await refused(member, dm, { stream_id: generalId }, "BAD_REQUEST", "Direct messages cannot be moved to channels.");
    await refused(member, 999999, { content: "y" }, "BAD_REQUEST", "Invalid message(s)");
    await refused(server.fixtures.moderator, dm, { content: "y" }, "BAD_REQUEST", "Invalid message(s)");
  });

  test("only the sender edits content; the realm switch and the time limit", async () => {
    const { member, admin } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "limits", "original");
    await refused(admin, id, { content: "hijack" }, "BAD_REQUEST", "You don't have permission to edit this message");
    await setRealmSettings(server, { allow_message_editing: false });
    try {
      await refused(member, id, { content: "no" }, "BAD_REQUEST", "Your organization has turned off message editing");
    } finally {
      await setRealmSettings(server, { allow_message_editing: true });
    }
    await setRealmSettings(server, { message_content_edit_limit_seconds: 100 });
    try {
      await server.advanceClock(120);
      expectSuccess(await edit(member, id, { content: "within the buffer" }));
      await server.advanceClock(1);
      await refused(member, id, { content: "too late" }, "BAD_REQUEST", "The time limit for editing this message has passed");
    } finally {
      await setRealmSettings(server, { message_content_edit_limit_seconds: 600 });
    }
  });

  test("a direct message's content is edited and its history kept", async () => {
    const { member, owner } = server.fixtures;
    const id = await sendDirectMessage(server, member, [owner.id], "hello @**Olivia Owner**");
    expectSuccess(await edit(member, id, { content: "hello again" }));
    const asOwner = await read(owner, id);
    assert.equal(asOwner.content, "<p>hello again</p>");
    assert.equal(asOwner.edit_history.length, 1);
    assert.ok(!asOwner.flags.includes("mentioned"), "the mention went away with the edit");
  });

  test("a new mention sets the flag of that recipient; a removed one clears it", async () => {
    const { member, moderator } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "mentions", "no mention yet");
    expectSuccess(await edit(member, id, { content: "now @**Mona Moderator**" }));
    assert.ok((await read(moderator, id)).flags.includes("mentioned"));
    expectSuccess(await edit(member, id, { content: "gone again" }));
    assert.ok(!(await read(moderator, id)).flags.includes("mentioned"));
    const rows = await withDb(server, (db) => db.selectFrom("user_message_flags").selectAll().where("message_id", "=", id).where("user_id", "=", moderator.id).execute());
    assert.deepEqual(rows, [], "default flags need no rows");
  });

  test("topic edits with each propagate mode; last_moved_timestamp without last_edit_timestamp", async () => {
    const { member } = server.fixtures;
    const ids = [await sendStreamMessage(server, member, "general", "modes", "one"), await sendStreamMessage(server, member, "general", "modes", "two"), await sendStreamMessage(server, member, "general", "Modes", "three")];
    await server.advanceClock(5);
    expectSuccess(await edit(member, ids[1], { topic: "later", propagate_mode: "change_later" }));
    assert.deepEqual(await Promise.all(ids.map(async (id) => (await row(id)).topic)), ["modes", "later", "later"]);
    const moved = await read(member, ids[2]);
    assert.equal(moved.subject, "later");
    assert.equal(moved.last_edit_timestamp, undefined);
    assert.equal(moved.last_moved_timestamp, moved.timestamp + 5);
    // Every moved message records the target's old topic, as upstream does.
    assert.deepEqual(moved.edit_history, [{ user_id: member.id, timestamp: moved.timestamp + 5, prev_topic: "modes", topic: "later" }]);
    expectSuccess(await edit(member, ids[0], { topic: "later" }));
    expectSuccess(await edit(member, ids[2], { topic: "all", propagate_mode: "change_all" }));
    assert.deepEqual(await Promise.all(ids.map(async (id) => (await row(id)).topic)), ["all", "all", "all"]);
    expectSuccess(await edit(member, ids[2], { subject: "legacy name" }));
    assert.equal((await row(ids[2])).topic, "legacy name");
  });

  test("(no topic) and the display name mean the empty topic; resolving sets no move time", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "to empty", "x");
    expectSuccess(await edit(member, id, { topic: "(no topic)" }));
    assert.equal((await row(id)).topic, "");
    expectSuccess(await edit(member, id, { topic: "resolvable" }));
    const movedAt = (await row(id)).last_moved_time;
    await server.advanceClock(3);
    expectSuccess(await edit(member, id, { topic: "✔ resolvable" }));
    const resolved = await row(id);
    assert.equal(resolved.topic, "✔ resolvable");
    assert.equal(resolved.last_moved_time, movedAt, "resolving is not a move (FL 365)");
    expectSuccess(await edit(member, id, { topic: "resolvable" }));
    assert.equal((await row(id)).last_moved_time, movedAt);
  });

  test("topic permissions: between-topics group, resolve group, the topic time limit", async () => {
    const { member, moderator } = server.fixtures;
    const nobody = await groupId(server, "role:nobody");
    const everyone = await groupId(server, "role:everyone");
    const id = await sendStreamMessage(server, member, "general", "perm", "x");
    await setRealmSettings(server, { can_move_messages_between_topics_group: nobody });
    try {
      await refused(member, id, { topic: "elsewhere" }, "BAD_REQUEST", "You don't have permission to edit this message");
      expectSuccess(await edit(member, id, { topic: "✔ perm" }));
      expectSuccess(await edit(member, id, { topic: "perm" }));
    } finally {
      await setRealmSettings(server, { can_move_messages_between_topics_group: everyone });
    }
    await setRealmSettings(server, { can_resolve_topics_group: nobody });
    try {
      await refused(member, id, { topic: "✔ perm" }, "BAD_REQUEST", "You don't have permission to resolve topics in this channel.");
    } finally {
      await setRealmSettings(server, { can_resolve_topics_group: everyone });
    }
    await server.advanceClock(WEEK + 21);
    await refused(member, id, { topic: "too old" }, "BAD_REQUEST", "The time limit for editing this message's topic has passed.");
    expectSuccess(await edit(moderator, id, { topic: "moderators may" }));
  });

  test("change_all by a member is limited to the recent part of the topic", async () => {
    const { member, moderator } = server.fixtures;
    const old = await sendStreamMessage(server, member, "general", "partial", "old");
    await server.advanceClock(WEEK);
    const recent = await sendStreamMessage(server, member, "general", "partial", "recent");
    await server.advanceClock(30);
    const res = await refused(member, recent, { topic: "moved", propagate_mode: "change_all" }, "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED", "You only have permission to move the 1/2 most recent messages in this topic.");
    assert.equal(res.body.first_message_id_allowed_to_move, recent);
    assert.equal(res.body.total_messages_in_topic, 2);
    assert.equal(res.body.total_messages_allowed_to_move, 1);
    expectSuccess(await edit(member, recent, { topic: "moved", propagate_mode: "change_later" }));
    expectSuccess(await edit(moderator, old, { topic: "moved", propagate_mode: "change_all" }));
    assert.equal((await row(old)).topic, "moved");
  });

  test("channel moves: permissions, targets, the channel time limit", async () => {
    const { member, moderator, guest } = server.fixtures;
    const admins = await groupId(server, "role:administrators");
    const members = await groupId(server, "role:members");
    const id = await sendStreamMessage(server, member, "general", "travel", "x");
    await refused(member, id, { stream_id: 99999 }, "BAD_REQUEST", "Invalid channel ID");
    await refused(moderator, id, { stream_id: secretId }, "BAD_REQUEST", "Invalid channel ID");
    await refused(guest, id, { stream_id: otherId }, "BAD_REQUEST", "Invalid channel ID");
    await setRealmSettings(server, { can_move_messages_between_channels_group: admins });
    try {
      await refused(member, id, { stream_id: otherId }, "BAD_REQUEST", "You don't have permission to move this message");
    } finally {
      await setRealmSettings(server, { can_move_messages_between_channels_group: members });
    }
    await server.advanceClock(WEEK + 21);
    await refused(member, id, { stream_id: otherId }, "BAD_REQUEST", "The time limit for editing this message's channel has passed");
    expectSuccess(await edit(moderator, id, { stream_id: otherId, topic: "arrived" }));
    const moved = await row(id);
    assert.equal(moved.stream_id, otherId);
    assert.equal(moved.topic, "arrived");
    const shown = await read(member, id);
    assert.equal(shown.display_recipient, "other");
    assert.deepEqual(shown.edit_history[0], { user_id: moderator.id, timestamp: shown.last_moved_timestamp, prev_stream: generalId, stream: otherId, prev_topic: "travel", topic: "arrived" });
  });

  test("a move into a private channel takes the message from users outside it", async () => {
    const { member, moderator, owner } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "to secret", "classified");
    const flagsBefore = (await read(member, id)).flags;
    expectSuccess(await edit(member, id, { stream_id: secretId }));
    expectError(await server.api.get(moderator, `/messages/${id}`), "BAD_REQUEST", "Invalid message(s)");
    assert.equal((await read(owner, id)).display_recipient, "secret");
    assert.deepEqual((await read(member, id)).flags, flagsBefore);
  });

  test("moved messages show upstream's flags to the new channel's subscribers", async () => {
    const { member, owner, admin } = server.fixtures;
    const id = await sendStreamMessage(server, admin, "general", "flags", "unread for the owner");
    assert.deepEqual((await read(owner, id)).flags, []);
    expectSuccess(await edit(admin, id, { stream_id: otherId }));
    // The owner had the message and is subscribed to the new channel: kept unread.
    assert.deepEqual((await read(owner, id)).flags, []);
    // The member is subscribed to both: unchanged too.
    assert.deepEqual((await read(member, id)).flags, []);
    // The admin sent it and is not subscribed to "other": historical, as upstream.
    assert.deepEqual((await read(admin, id)).flags, ["read", "historical"]);
  });
});

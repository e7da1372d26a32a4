/** PATCH /messages/{id}: the Notification Bot's breadcrumbs after moves and its resolve/unresolve notices. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, setRealmSettings, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { readMessage } from "./messages-edit-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { sendStreamMessage } from "../helpers/factories.ts";

const TABLES = ["messages", "user_message_flags", "user_topics", "users"] as const;
const FOLLOWED = 3;

describeEachStore("move and resolve notifications", (server) => {
  const ids: Record<string, number> = {};

  const edit = (user: Credentials, id: number, params: Record<string, unknown>) => server.api.patch(user, `/messages/${id}`, params);
  const move = async (user: Credentials, id: number, params: Record<string, unknown>) => expectSuccess(await edit(user, id, params));
  const who = (user: { id: number; fullName: string }) => `@_**${user.fullName}|${user.id}**`;
  /** The Notification Bot's messages in a topic, oldest first. */
  const notices = (channel: string, topic: string) =>
    withDb(server, (db) =>
      db
        .selectFrom("messages")
        .innerJoin("users", "users.id", "messages.sender_id")
        .select(["messages.id", "messages.content", "messages.rendered_content"])
        .where("users.full_name", "=", "Notification Bot")
        .where("messages.stream_id", "=", ids[channel])
        .where("messages.topic", "=", topic)
        .orderBy("messages.id")
        .execute(),
    );
  const texts = async (channel: string, topic: string) => (await notices(channel, topic)).map((n) => n.content);

  before(async () => {
    const { owner, moderator, member, guest } = server.fixtures;
    const subscribe = async (name: string, principals: number[], extra: Record<string, unknown> = {}) =>
      expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals: [owner.id, ...principals], ...extra }));
    await subscribe("general", [moderator.id, member.id, guest.id]);
    await subscribe("other", [moderator.id, member.id]);
    await subscribe("secret", [member.id], { invite_only: true });
    await subscribe("a>b", [member.id]);
    for (const name of ["general", "other", "secret", "a>b"]) ids[name] = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: name })).stream_id;
  });

  test("a content edit alone, and refused moves, send nothing (the bot is not even created)", async () => {
    const { member, guest, owner } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "quiet", "hi");
    await move(member, id, { content: "edited", send_notification_to_old_thread: true });
    assert.deepEqual(await notices("general", "quiet"), []);
    const hidden = await sendStreamMessage(server, owner, "secret", "private", "hi");
    const before = await countRows(server, [...TABLES]);
    expectError(await edit(guest, id, { stream_id: ids.other, send_notification_to_old_thread: true }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await edit(member, id, { stream_id: ids["a>b"], topic: "loud", propagate_mode: "sideways" }), "BAD_REQUEST", "Invalid propagate_mode");
    await setRealmSettings(server, { move_messages_within_stream_limit_seconds: 60 });
    await server.advanceClock(600);
    expectError(await edit(member, id, { topic: "loud", send_notification_to_old_thread: true }), "BAD_REQUEST", "The time limit for editing this message's topic has passed.");
    await setRealmSettings(server, { move_messages_within_stream_limit_seconds: 604800 });
    expectError(await edit(guest, hidden, { topic: "loud" }), "BAD_REQUEST", "Invalid message(s)");
    assert.deepEqual(await countRows(server, [...TABLES]), before);
    const bots = await withDb(server, (db) => db.selectFrom("users").select("id").where("full_name", "=", "Notification Bot").execute());
    assert.deepEqual(bots, []);
  });

  test("a whole topic moved to another channel: the new thread says so, read for the mover only", async () => {
    const { member, moderator } = server.fixtures;
    const first = await sendStreamMessage(server, member, "general", "trip", "hi");
    await sendStreamMessage(server, moderator, "general", "trip", "hi");
    const [mine, theirs] = [await registerQueue(server.api, member, { event_types: JSON.stringify(["message", "update_message"]) }), await registerQueue(server.api, moderator, { event_types: JSON.stringify(["message"]) })];
    await move(member, first, { stream_id: ids.other, propagate_mode: "change_all" });
    assert.deepEqual(await texts("other", "trip"), [`This topic was moved here from #**general>trip** by ${who(member)}.`]);
    assert.deepEqual(await texts("general", "trip"), [], "send_notification_to_old_thread defaults to false");
    const [notice] = await notices("other", "trip");
    assert.ok(notice.rendered_content.includes(`class="stream-topic"`), "the old location renders as a topic link");
    const events = withoutIds(await pollEvents(server.api, mine));
    assert.deepEqual(events.map((e) => e.type), ["update_message", "message"]);
    const event = events[1] as { message: { id: number; sender_full_name: string; subject: string; display_recipient: string }; flags: string[] };
    assert.equal(event.message.id, notice.id);
    assert.equal(event.message.sender_full_name, "Notification Bot");
    assert.equal(event.message.display_recipient, "other");
    assert.equal(event.message.subject, "trip");
    assert.deepEqual(event.flags, ["read"]);
    const [other] = await pollEvents(server.api, theirs);
    assert.deepEqual(other.flags, []);
    assert.deepEqual((await readMessage(server.api, moderator, notice.id)).flags, []);
  });

  test("both flags on a topic rename: the new thread first, then the old one", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "alpha", "hi");
    await sendStreamMessage(server, member, "general", "alpha", "hi");
    await move(member, id, { topic: "beta", propagate_mode: "change_all", send_notification_to_old_thread: true, send_notification_to_new_thread: true });
    const [fresh] = await notices("general", "beta");
    const [old] = await notices("general", "alpha");
    assert.equal(fresh.content, `This topic was moved here from #**general>alpha** by ${who(member)}.`);
    assert.equal(old.content, `This topic was moved to #**general>beta** by ${who(member)}.`);
    assert.ok(fresh.id < old.id);
  });

  test("several messages moved (change_later)", async () => {
    const { member } = server.fixtures;
    await sendStreamMessage(server, member, "general", "gamma", "hi");
    const second = await sendStreamMessage(server, member, "general", "gamma", "hi");
    await sendStreamMessage(server, member, "general", "gamma", "hi");
    await move(member, second, { topic: "delta", propagate_mode: "change_later", send_notification_to_old_thread: true });
    assert.deepEqual(await texts("general", "delta"), [`2 messages were moved here from #**general>gamma** by ${who(member)}.`]);
    assert.deepEqual(await texts("general", "gamma"), [`2 messages were moved from this topic to #**general>delta** by ${who(member)}.`]);
  });

  test("one message moved (change_one) links to it in the new thread", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "epsilon", "hi");
    await sendStreamMessage(server, member, "general", "epsilon", "hi");
    await move(member, id, { topic: "zeta", stream_id: ids.other, send_notification_to_old_thread: true });
    const link = `${server.url}/#narrow/channel/${ids.other}-other/topic/zeta/near/${id}`;
    assert.deepEqual(await texts("other", "zeta"), [`[A message](${link}) was moved here from #**general>epsilon** by ${who(member)}.`]);
    assert.deepEqual(await texts("general", "epsilon"), [`A message was moved from this topic to #**other>zeta** by ${who(member)}.`]);
  });

  test("moving every visible message with change_one counts as the whole topic", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "lonely", "hi");
    await move(member, id, { topic: "lonelier", send_notification_to_old_thread: true });
    assert.deepEqual(await texts("general", "lonelier"), [`This topic was moved here from #**general>lonely** by ${who(member)}.`]);
    assert.deepEqual(await texts("general", "lonely"), [`This topic was moved to #**general>lonelier** by ${who(member)}.`]);
  });

  test("a whole topic merged into a topic with messages is counted, not called a topic move", async () => {
    const { member, owner } = server.fixtures;
    await sendStreamMessage(server, owner, "general", "target", "hi");
    const one = await sendStreamMessage(server, member, "general", "merge one", "hi");
    await move(member, one, { topic: "target", propagate_mode: "change_all", send_notification_to_old_thread: true });
    const link = `${server.url}/#narrow/channel/${ids.general}-general/topic/target/near/${one}`;
    const two = await sendStreamMessage(server, member, "general", "merge two", "hi");
    await sendStreamMessage(server, member, "general", "merge two", "hi");
    await move(member, two, { topic: "target", propagate_mode: "change_all" });
    assert.deepEqual(await texts("general", "target"), [
      `[A message](${link}) was moved here from #**general>merge one** by ${who(member)}.`,
      `2 messages were moved here from #**general>merge two** by ${who(member)}.`,
    ]);
    assert.deepEqual(await texts("general", "merge one"), [`This topic was moved to #**general>target** by ${who(member)}.`]);
  });

  test("each flag combination", async () => {
    const { member } = server.fixtures;
    const cases: Array<[boolean, boolean, number, number]> = [
      [false, false, 0, 0],
      [true, false, 1, 0],
      [false, true, 0, 1],
      [true, true, 1, 1],
    ];
    for (const [oldThread, newThread, inOld, inNew] of cases) {
      const topic = `flags ${oldThread} ${newThread}`;
      const id = await sendStreamMessage(server, member, "general", topic, "hi");
      await move(member, id, { topic: `${topic} moved`, send_notification_to_old_thread: oldThread, send_notification_to_new_thread: newThread });
      assert.equal((await notices("general", topic)).length, inOld, topic);
      assert.equal((await notices("general", `${topic} moved`)).length, inNew, topic);
    }
  });

  test("names that break #**channel>topic** get a Markdown link instead", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "x*y [1]", "hi");
    await move(member, id, { stream_id: ids["a>b"], send_notification_to_old_thread: true });
    const fallback = `[#a&gt;b > x&#42;y &#91;1&#93;](#narrow/channel/${ids["a>b"]}-a.3Eb/topic/x*y.20.5B1.5D)`;
    assert.deepEqual(await texts("general", "x*y [1]"), [`This topic was moved to ${fallback} by ${who(member)}.`]);
    assert.deepEqual(await texts("a>b", "x*y [1]"), [`This topic was moved here from [#general > x&#42;y &#91;1&#93;](#narrow/channel/${ids.general}-general/topic/x*y.20.5B1.5D) by ${who(member)}.`]);
  });

  test("the bot posts in a private channel it is not subscribed to", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "hush", "hi");
    await move(member, id, { stream_id: ids.secret, send_notification_to_old_thread: true });
    assert.deepEqual(await texts("secret", "hush"), [`This topic was moved here from #**general>hush** by ${who(member)}.`]);
    assert.equal((await notices("general", "hush")).length, 1);
  });

  test("resolving and unresolving: one notice each, unread only for followers, no breadcrumb", async () => {
    const { member, owner, moderator } = server.fixtures;
    const id = await sendStreamMessage(server, owner, "general", "issue", "hi");
    await sendStreamMessage(server, member, "general", "issue", "hi");
    expectSuccess(await server.api.post(moderator, "/user_topics", { stream_id: ids.general, topic: "issue", visibility_policy: FOLLOWED }));
    await move(member, id, { topic: "✔ issue", propagate_mode: "change_all" });
    const [resolved] = await notices("general", "✔ issue");
    assert.equal(resolved.content, `${who(member)} has marked this topic as resolved.`);
    assert.equal((await notices("general", "✔ issue")).length, 1, "no moved-here breadcrumb for a resolve");
    // The owner started the topic (and so follows it), the moderator follows it; the mover read it.
    assert.deepEqual((await readMessage(server.api, owner, resolved.id)).flags, []);
    assert.deepEqual((await readMessage(server.api, moderator, resolved.id)).flags, []);
    assert.deepEqual((await readMessage(server.api, member, resolved.id)).flags, ["read"]);
    expectSuccess(await server.api.post(moderator, "/user_topics", { stream_id: ids.general, topic: "issue", visibility_policy: 0 }));
    await server.advanceClock(61);
    await move(member, id, { topic: "issue", propagate_mode: "change_all" });
    const after = await notices("general", "issue");
    assert.deepEqual(after.map((n) => n.content), [`${who(member)} has marked this topic as resolved.`, `${who(member)} has marked this topic as unresolved.`]);
    assert.deepEqual((await readMessage(server.api, moderator, after[1].id)).flags, ["read"], "the moderator stopped following");
    assert.deepEqual((await readMessage(server.api, owner, after[1].id)).flags, []);
  });

  test("an unresolve within the grace period deletes the resolve notice instead", async () => {
    const { member, owner } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "oops", "hi");
    const q = await registerQueue(server.api, owner, { event_types: JSON.stringify(["message", "update_message", "delete_message"]), client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true }) });
    await move(member, id, { topic: "✔ oops", propagate_mode: "change_all" });
    const [notice] = await notices("general", "✔ oops");
    await server.advanceClock(59);
    await move(member, id, { topic: "oops", propagate_mode: "change_all" });
    assert.deepEqual(await notices("general", "oops"), []);
    assert.deepEqual(await notices("general", "✔ oops"), []);
    const events = withoutIds(await pollEvents(server.api, q));
    assert.deepEqual(events.map((e) => e.type), ["update_message", "message", "update_message", "delete_message"]);
    assert.deepEqual(events[3], { type: "delete_message", message_ids: [notice.id], message_type: "stream", stream_id: ids.general, topic: "oops" });
  });

  test("a resolve sends the old-thread breadcrumb when asked, after its notice", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "bug", "hi");
    await move(member, id, { topic: "✔ bug", propagate_mode: "change_all", send_notification_to_old_thread: true });
    const [resolved] = await notices("general", "✔ bug");
    const [old] = await notices("general", "bug");
    assert.equal(resolved.content, `${who(member)} has marked this topic as resolved.`);
    assert.equal(old.content, `This topic was moved to #**general>✔ bug** by ${who(member)}.`);
    assert.ok(resolved.id < old.id);
  });

  test("no resolve notice when the channel or the content changes too", async () => {
    const { member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "fix", "hi");
    await move(member, id, { topic: "✔ fix", stream_id: ids.other });
    assert.deepEqual(await texts("other", "✔ fix"), [`This topic was moved here from #**general>fix** by ${who(member)}.`]);
    const other = await sendStreamMessage(server, member, "general", "patch", "hi");
    await move(member, other, { topic: "✔ patch", content: "patched" });
    assert.deepEqual(await notices("general", "✔ patch"), []);
  });
});

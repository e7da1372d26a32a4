/**
 * The unread watermark (store/messages/unread-watermarks.ts): each register settles the user's unread
 * messages (each gets a flag row, the watermark moves up), and later registers look for row-less
 * unread messages only above it. Every write that can leave a message below the watermark
 * unread without a row must keep unread_msgs exact: marking unread, a move to another channel,
 * an edit that takes a mention away. The suite's servers settle at once (UNREAD_SETTLE_SECONDS=0,
 * test/helpers/server.ts), on PostgreSQL too. The first-unread anchor finds settled unread messages
 * through their rows.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { registerQueue, unreadMessageIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("unread watermark", (server) => {
  let eastId: number;
  const send = messageSender(server, { read_by_sender: true });
  const unreads = async (user: Credentials) => (await registerQueue(server.api, user, { fetch_event_types: ["message", "update_message_flags"] })).state.unread_msgs as Record<string, any>;
  const unreadIds = async (user: Credentials): Promise<number[]> => unreadMessageIds(await unreads(user));
  const watermark = (userId: number) =>
    withDb(server, async (db) => (await db.selectFrom("unread_watermarks").select("message_id").where("user_id", "=", userId).executeTakeFirst())?.message_id ?? null);

  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "west" }, { name: "east" }], principals: [owner.id, member.id] }));
    eastId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "east" })).stream_id;
  });

  test("a register settles unread messages; later reads, unreads and new messages stay exact", async () => {
    const { owner, member } = server.fixtures;
    const a = await send(owner, { type: "stream", to: "west", topic: "t", content: "one" });
    const b = await send(owner, { type: "stream", to: "west", topic: "t", content: "two" });
    const dm = await send(owner, { type: "private", to: [member.id], content: "psst" });
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [b], op: "add", flag: "read" }));
    assert.deepEqual(await unreadIds(member), [a, dm]);
    assert.ok(((await watermark(member.id)) ?? 0) >= dm, "settled up to the newest message");
    // Below the watermark now: reading, then unreading, each shows at once.
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [a, dm], op: "add", flag: "read" }));
    assert.deepEqual(await unreadIds(member), []);
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [b, dm], op: "remove", flag: "read" }));
    assert.deepEqual(await unreadIds(member), [b, dm]);
    const c = await send(owner, { type: "stream", to: "west", topic: "t", content: "three" });
    assert.deepEqual(await unreadIds(member), [b, dm, c]);
    expectSuccess(await server.api.post(member, "/mark_all_as_read", {}));
    assert.deepEqual(await unreadIds(member), []);
  });

  test("a settled unread message moved to another channel of the reader's stays unread there", async () => {
    const { owner, member } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "west", topic: "moving", content: "going east" });
    assert.deepEqual(await unreadIds(member), [id]);
    expectSuccess(await server.api.patch(owner, `/messages/${id}`, { stream_id: eastId, propagate_mode: "change_all", send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
    const after = await unreads(member);
    assert.deepEqual(after.streams, [{ stream_id: eastId, topic: "moving", unread_message_ids: [id] }]);
    expectSuccess(await server.api.post(member, "/mark_all_as_read", {}));
  });

  test("an edit that takes a settled message's mention away leaves it unread", async () => {
    const { owner, member } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "west", topic: "mention", content: "hey @**Max Member**" });
    const before = await unreads(member);
    assert.deepEqual(before.mentions, [id]);
    expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: "hey everyone" }));
    const after = await unreads(member);
    assert.deepEqual(after.mentions, []);
    assert.deepEqual(after.streams, [{ stream_id: after.streams[0]?.stream_id, topic: "mention", unread_message_ids: [id] }]);
    expectSuccess(await server.api.post(member, "/mark_all_as_read", {}));
  });

  test("first_unread: settled unread messages through their rows, newer ones above the watermark, muted topics skipped", async () => {
    const { owner, member } = server.fixtures;
    const firstUnread = async (narrow: unknown[]) =>
      expectSuccess(await server.api.get(member, "/messages", { anchor: "first_unread", num_before: 0, num_after: 0, narrow })).anchor as number;
    const west = [{ operator: "channel", operand: "west" }];
    const a1 = await send(owner, { type: "stream", to: "west", topic: "fu", content: "a1" });
    const a2 = await send(owner, { type: "stream", to: "west", topic: "fu", content: "a2" });
    const a3 = await send(owner, { type: "stream", to: "west", topic: "fu", content: "a3" });
    const b1 = await send(owner, { type: "stream", to: "east", topic: "fu", content: "b1" });
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [a1], op: "add", flag: "read" }));
    await unreads(member);
    assert.ok(((await watermark(member.id)) ?? 0) >= b1, "settled up to the newest message");
    assert.equal(await firstUnread(west), a2);
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [a2, a3], op: "add", flag: "read" }));
    const a4 = await send(owner, { type: "stream", to: "west", topic: "fu", content: "a4" });
    assert.equal(await firstUnread(west), a4, "above the watermark, without a row");
    assert.equal(await firstUnread([]), b1);
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: eastId, topic: "fu", visibility_policy: 1 }));
    assert.equal(await firstUnread([]), a4, "a muted topic is skipped");
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [a1], op: "remove", flag: "read" }));
    assert.equal(await firstUnread(west), a1, "marked unread again, below the watermark");
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: eastId, topic: "fu", visibility_policy: 0 }));
    expectSuccess(await server.api.post(member, "/mark_all_as_read", {}));
    assert.equal(await firstUnread(west), 10_000_000_000_000_000, "nothing unread: the newest");
  });
});

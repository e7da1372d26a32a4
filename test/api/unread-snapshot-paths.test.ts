/**
 * The register snapshot finds row-less unread messages above the user's watermark in one of two
 * ways (store/lookups/unreads.ts): a walk down from the newest message when few messages lie above it,
 * or a query through the user's own channels when many do (SNAPSHOT_WALK_LIMIT, 5,000). This
 * suite's server never settles (UNREAD_SETTLE_SECONDS far off), so the watermark stays at 0 and
 * the messages in the store decide the way: first a few, then over 5,000 more, written directly.
 * Both ways must count the same messages: the user's channels and direct messages, not their own
 * messages, not read ones, not a channel they are not in.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { eachChunk, rowChunks } from "../../src/store/engine/chunks.ts";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { registerQueue, unreadMessageIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { messageSender } from "../helpers/factories.ts";

/** More than the walk's limit above a watermark of 0. */
const MANY = 5_100;

describeEachStore("register: unread messages above a near and a far watermark", { env: { UNREAD_SETTLE_SECONDS: "86400" } }, (server) => {
  const send = messageSender(server, { read_by_sender: true });
  const unreadIds = async (user: Credentials): Promise<{ count: number; ids: number[] }> => {
    const u = (await registerQueue(server.api, user, { fetch_event_types: ["message", "update_message_flags"] })).state.unread_msgs as Record<string, any>;
    return { count: u.count, ids: unreadMessageIds(u) };
  };

  before(async () => {
    const { owner, admin } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "near" }], principals: [owner.id, admin.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "elsewhere" }], principals: [owner.id] }));
  });

  test("a few messages above the watermark, then thousands: the same messages count", async () => {
    const { owner, admin } = server.fixtures;
    const channel = await send(owner, { type: "stream", to: "near", topic: "t", content: "one" });
    const read = await send(owner, { type: "stream", to: "near", topic: "t", content: "read" });
    await send(admin, { type: "stream", to: "near", topic: "t", content: "my own" });
    await send(owner, { type: "stream", to: "elsewhere", topic: "t", content: "not theirs" });
    const direct = await send(owner, { type: "private", to: [admin.id], content: "hi" });
    expectSuccess(await server.api.post(admin, "/messages/flags", { messages: [read], op: "add", flag: "read" }));
    const near = await unreadIds(admin);
    assert.deepEqual(near, { count: 2, ids: [channel, direct] });

    // Thousands more in the admin's channel, written directly (sending each would take minutes).
    const row = await withDb(server, (db) => db.selectFrom("messages").selectAll().where("id", "=", channel).executeTakeFirstOrThrow());
    const { id: _, ...template } = row;
    await withDb(server, (db) => eachChunk(rowChunks(Array.from({ length: MANY }, () => template)), (chunk) => db.insertInto("messages").values(chunk).execute()));
    const far = await unreadIds(admin);
    assert.equal(far.count, MANY + 2);
    assert.equal(far.ids.length, MANY + 2);
    assert.deepEqual(far.ids.slice(0, 2), [channel, direct]);
  });
});

/**
 * Concurrent writes never answer 5xx (issue 11, item 5). PostgreSQL runs transactions side by
 * side: two requests that both find a row missing both insert it, and the second used to hit the
 * unique index (user_topics_unique on a sender's automatic follow, 1-3 sends in 2,500 under 50
 * concurrent senders). Every insert-if-absent is an upsert now. Each race here runs the same
 * request ~20 times at once for several rounds: every answer is 200 or Zulip's 4xx for a
 * duplicate, and the final state holds one row. SQLite serialises writes; the suite runs on both.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { sql } from "kysely";
import { expectSuccess, type ApiResponse } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import type { TestServer } from "../helpers/server.ts";
import { describeEachStore } from "../helpers/suite.ts";

const RACERS = 20;
const ROUNDS = 4;

/** Runs `call` RACERS times at once. */
function race(call: (i: number) => Promise<ApiResponse>): Promise<ApiResponse[]> {
  return Promise.all(Array.from({ length: RACERS }, (_, i) => call(i)));
}

/** No 5xx, and every refusal is one of `allowed` (code and message). */
function onlySuccessOr(responses: ApiResponse[], allowed: Array<{ code: string; msg: string }> = []): number {
  let successes = 0;
  for (const res of responses) {
    if (res.status === 200) {
      successes++;
      continue;
    }
    assert.ok(res.status < 500, `a 5xx: ${res.status} ${JSON.stringify(res.body)}`);
    assert.ok(
      allowed.some((a) => a.code === res.body.code && a.msg === res.body.msg),
      `unexpected refusal: ${res.status} ${JSON.stringify(res.body)}`,
    );
  }
  return successes;
}

describeEachStore("concurrent writes", { env: { RATE_LIMITS: "off" } }, (server) => {
  let f: TestServer["fixtures"];
  let streamId: number;

  before(async () => {
    f = server.fixtures;
    const everyone = [f.owner.id, f.admin.id, f.moderator.id, f.member.id];
    expectSuccess(await server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: "arena" }], principals: everyone }));
    streamId = expectSuccess(await server.api.get(f.owner, "/get_stream_id", { stream: "arena" })).stream_id;
  });

  /** The user's rows for a topic of the arena (any spelling). */
  const topicRows = (userId: number, topic: string) =>
    withDb(server, (db) =>
      db
        .selectFrom("user_topics")
        .select(["topic", "visibility_policy"])
        .where("user_id", "=", userId)
        .where("stream_id", "=", streamId)
        .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
        .execute(),
    );

  test("one sender's first messages to a new topic, at once: all sent, one followed topic", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const topic = `first words ${round}`;
      // Differently cased spellings of one topic all land on one row of the case-insensitive index.
      const sends = await race((i) => server.api.post(f.member, "/messages", { type: "stream", to: "arena", topic: i % 2 ? topic : topic.toUpperCase(), content: `hello ${i}` }));
      assert.equal(onlySuccessOr(sends), RACERS);
      const rows = await topicRows(f.member.id, topic);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].visibility_policy, 3, "followed (automatically_follow_topics_policy: on initiation)");
    }
  });

  test("several senders mentioning one user in a new topic, at once: one followed topic for the mentioned user", async () => {
    const senders = [f.owner, f.admin, f.moderator];
    for (let round = 0; round < ROUNDS; round++) {
      const topic = `mentions ${round}`;
      const sends = await race((i) => server.api.post(senders[i % senders.length], "/messages", { type: "stream", to: "arena", topic, content: `@**${f.member.fullName}** look ${i}` }));
      assert.equal(onlySuccessOr(sends), RACERS);
      assert.equal((await topicRows(f.member.id, topic)).length, 1);
    }
  });

  test("first messages into new channels, at once: first_message_id is each channel's oldest message", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const name = `fresh ${round}`;
      expectSuccess(await server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name }] }));
      const sends = await race((i) => server.api.post(f.owner, "/messages", { type: "stream", to: name, topic: "t", content: `first? ${i}` }));
      assert.equal(onlySuccessOr(sends), RACERS);
      const oldest = Math.min(...sends.map((r) => r.body.id as number));
      const stream = expectSuccess(await server.api.get(f.owner, "/get_stream_id", { stream: name }));
      const channel = expectSuccess(await server.api.get(f.owner, `/streams/${stream.stream_id}`)).stream;
      assert.equal(channel.first_message_id, oldest);
    }
  });

  test("first direct messages between the same users, at once: one conversation", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const to = [f.owner.id, f.admin.id, f.moderator.id].slice(0, 1 + (round % 3));
      const sends = await race((i) => server.api.post(f.member, "/messages", { type: "direct", to: JSON.stringify([...to, round === 3 ? f.guest.id : f.owner.id]), content: `dm ${i}` }));
      assert.equal(onlySuccessOr(sends), RACERS);
      const ids = sends.map((r) => r.body.id as number);
      const recipients = await withDb(server, (db) => db.selectFrom("messages").select("recipient_id").distinct().where("id", "in", ids).execute());
      assert.equal(recipients.length, 1);
    }
  });

  test("setting the same topic policy at once: one row", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const topic = `muted ${round}`;
      const sets = await race(() => server.api.post(f.moderator, "/user_topics", { stream_id: streamId, topic, visibility_policy: 1 }));
      assert.equal(onlySuccessOr(sets), RACERS);
      assert.deepEqual(await topicRows(f.moderator.id, topic), [{ topic, visibility_policy: 1 }]);
    }
  });

  test("adding and removing the same reaction at once: one row, then none", async () => {
    const exists = { code: "REACTION_ALREADY_EXISTS", msg: "Reaction already exists." };
    const missing = { code: "REACTION_DOES_NOT_EXIST", msg: "Reaction doesn't exist." };
    const reactions = (messageId: number) => withDb(server, (db) => db.selectFrom("reactions").select(["user_id", "emoji_code"]).where("message_id", "=", messageId).execute());
    for (let round = 0; round < ROUNDS; round++) {
      const messageId = expectSuccess(await server.api.post(f.owner, "/messages", { type: "stream", to: "arena", topic: "reactions", content: `react ${round}` })).id;
      const adds = await race(() => server.api.post(f.member, `/messages/${messageId}/reactions`, { emoji_name: "octopus" }));
      assert.equal(onlySuccessOr(adds, [exists]), 1);
      assert.deepEqual(await reactions(messageId), [{ user_id: f.member.id, emoji_code: "1f419" }]);
      const removes = await race(() => server.api.delete(f.member, `/messages/${messageId}/reactions`, { emoji_name: "octopus" }));
      assert.equal(onlySuccessOr(removes, [missing]), 1);
      assert.deepEqual(await reactions(messageId), []);
    }
  });

  test("subscribing the same user at once, to an existing and to a new channel: one subscription, one channel", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const name = `joined ${round}`;
      // A new channel: every request may find it missing and create it.
      const creates = await race(() => server.api.post(f.member, "/users/me/subscriptions", { subscriptions: [{ name }] }));
      assert.equal(onlySuccessOr(creates), RACERS);
      const streams = await withDb(server, (db) => db.selectFrom("streams").select("id").where(sql<string>`lower(name)`, "=", name.toLowerCase()).execute());
      assert.equal(streams.length, 1);
      // An existing channel, the same user subscribed by several admins at once.
      const adds = await race((i) => server.api.post(i % 2 ? f.admin : f.owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals: [f.guest.id] }));
      assert.equal(onlySuccessOr(adds), RACERS);
      const subscribed = adds.filter((r) => r.body.subscribed?.[String(f.guest.id)]?.includes(name));
      assert.equal(subscribed.length, 1, "one request subscribed the guest, the others found them subscribed");
      const state = await withDb(server, async (db) => ({
        rows: await db.selectFrom("subscriptions").select("active").where("user_id", "=", f.guest.id).where("stream_id", "=", streams[0].id).execute(),
        open: await db.selectFrom("subscription_periods").select("id").where("user_id", "=", f.guest.id).where("stream_id", "=", streams[0].id).where("last_message_id", "is", null).execute(),
      }));
      assert.deepEqual(state.rows, [{ active: 1 }]);
      assert.equal(state.open.length, 1, "one open subscription period");
    }
  });

  test("adding the same group member at once: one membership", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const groupId = expectSuccess(await server.api.post(f.admin, "/user_groups/create", { name: `racers ${round}`, description: "", members: [] })).group_id;
      const already = { code: "BAD_REQUEST", msg: `User ${f.member.id} is already a member of this group` };
      const adds = await race(() => server.api.post(f.admin, `/user_groups/${groupId}/members`, { add: [f.member.id] }));
      assert.equal(onlySuccessOr(adds, [already]), 1);
      assert.deepEqual(expectSuccess(await server.api.get(f.admin, `/user_groups/${groupId}/members`)).members, [f.member.id]);
      const missing = { code: "BAD_REQUEST", msg: `There is no member '${f.member.id}' in this user group` };
      const removes = await race(() => server.api.post(f.admin, `/user_groups/${groupId}/members`, { delete: [f.member.id] }));
      assert.equal(onlySuccessOr(removes, [missing]), 1);
      assert.deepEqual(expectSuccess(await server.api.get(f.admin, `/user_groups/${groupId}/members`)).members, []);
    }
  });

  test("a first status set twice at once: one row", async () => {
    const sets = await race((i) => server.api.post(f.moderator, "/users/me/status", { status_text: `busy ${i}` }));
    assert.equal(onlySuccessOr(sets), RACERS);
    const rows = await withDb(server, (db) => db.selectFrom("user_status").select("status_text").where("user_id", "=", f.moderator.id).execute());
    assert.equal(rows.length, 1);
    assert.match(rows[0].status_text, /^busy \d+$/);
  });

  test("nothing was logged as a server error", () => {
    assert.doesNotMatch(server.output(), /"level":50/);
  });
});

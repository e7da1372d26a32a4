/**
 * Sends survive a crash (issue 15): 20 concurrent senders post channel messages over HTTP; once
 * 200 sends have answered success the server is killed with SIGKILL while sends are in flight
 * (those fail with connection errors, as they should). A server restarted on the same store must
 * then show every acknowledged message, with its content and every subscriber's flags, and no
 * message may be half-written: each message row has its flag rows, its search entry and its
 * automatic topic follows, and nothing of those exists for a message that is missing. Twice per
 * store: kill, restart, send more, kill again.
 *
 * What a send writes (actions/messages/send.ts doSendMessage, store/messages/messages.ts insertMessage):
 * the `messages` row; the search entry (SQLite: the FTS5 table `message_search`, written at the
 * end of the group-commit batch; PostgreSQL: `messages.search_tsv`); `user_message_flags` rows only
 * where flags differ from the default (sender: read; others: none), so here the mentioned user's
 * row (mentioned) and the sender's row (0) when read_by_sender is false; `user_topics` rows for the
 * sender, who follows a topic they start, and for the mentioned user, who follows a topic where
 * they are mentioned (the default settings); the channel's first_message_id. Who received a
 * channel message follows from `subscription_periods`, written at subscription time.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { sql } from "kysely";
import { expectSuccess } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { startServerOnStore } from "../helpers/server.ts";
import { describeEachStore } from "../helpers/suite.ts";

/** Concurrent senders in the load. */
const SENDERS = 20;
/** Successful sends after which the server is killed (the load keeps going until then). */
const ACKS_BEFORE_KILL = 200;
/** Bound on reaching ACKS_BEFORE_KILL; a loaded 2-core machine does it in a few seconds. */
const LOAD_TIMEOUT_MS = 30_000;
const ROUNDS = 2;
/** A word in every message, for the search check. */
const WORD = "crashload";
const CHANNEL = "crash load";
const FOLLOWED = 3;
const MENTIONED_BIT = 8;

/** One send the load tried: what it should have written if it was kept. */
type Attempt = { content: string; topic: string; sender: TestUser; mentioned: TestUser; readBySender: boolean };

type LoadResult = { acked: number; connectionErrors: number };

/** A message as GET /messages lists it (the fields checked here). */
type Listed = { id: number; sender_id: number; subject: string; content: string; flags: string[] };

/** A user's flags on an attempted message, as the API lists them: read for a sender who asked, mentioned for the mentioned one. */
function expectedFlags(attempt: Attempt, userId: number): string[] {
  if (userId === attempt.sender.id) return attempt.readBySender ? ["read"] : [];
  if (userId === attempt.mentioned.id) return ["mentioned"];
  return [];
}

/** The stored flag rows an attempt should have written, as "message:user:bits". */
function expectedFlagRows(messageId: number, attempt: Attempt): string[] {
  const rows = [`${messageId}:${attempt.mentioned.id}:${MENTIONED_BIT}`];
  if (!attempt.readBySender) rows.push(`${messageId}:${attempt.sender.id}:0`);
  return rows;
}

function timeout(ms: number, what: string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done in ${ms} ms`)), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

describeEachStore("sends across a crash (SIGKILL)", (server, store) => {
  let users: TestUser[];
  let streamId: number;
  /** Every send tried, by its (unique) content. */
  const attempts = new Map<string, Attempt>();
  /** Every send that answered success, by message id. */
  const acked = new Map<number, Attempt>();

  before(async () => {
    const f = server.fixtures;
    users = [f.owner, f.admin, f.moderator, f.member, f.guest];
    expectSuccess(await server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: CHANNEL }], principals: users.map((u) => u.id) }));
    streamId = expectSuccess(await server.api.get(f.owner, "/get_stream_id", { stream: CHANNEL })).stream_id;
  });

  /**
   * Runs SENDERS loops of sends until ACKS_BEFORE_KILL have succeeded, then kills the server
   * while they are in flight. A send that throws before the kill, or answers anything but
   * success, fails the test.
   */
  async function sendThenKill(round: number): Promise<LoadResult> {
    let acks = 0;
    let killing = false;
    let connectionErrors = 0;
    let unexpected: string | null = null;
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const worker = async (w: number) => {
      const senderIndex = w % users.length;
      for (let n = 0; !killing; n++) {
        const key = `r${round} w${w} n${n}`;
        // Anyone but the sender, in turn.
        const mentioned = users[(senderIndex + 1 + (n % (users.length - 1))) % users.length];
        const attempt: Attempt = { content: `${WORD} ${key} @**${mentioned.fullName}**`, topic: key, sender: users[senderIndex], mentioned, readBySender: n % 2 === 0 };
        attempts.set(attempt.content, attempt);
        const params = { type: "stream", to: streamId, topic: attempt.topic, content: attempt.content, read_by_sender: attempt.readBySender };
        try {
          const res = await server.api.post(attempt.sender, "/messages", params, { validate: false });
          if (res.status === 200 && res.body.result === "success") {
            acked.set(res.body.id, attempt);
            if (++acks >= ACKS_BEFORE_KILL) stop();
          } else {
            unexpected ??= `send ${key} answered ${res.status}: ${JSON.stringify(res.body)}`;
            stop();
          }
        } catch (err) {
          if (killing) {
            connectionErrors++;
          } else {
            unexpected ??= `send ${key} failed before the kill: ${String(err)}`;
            stop();
          }
        }
      }
    };
    const workers = Array.from({ length: SENDERS }, (_, w) => worker(w));
    const bound = timeout(LOAD_TIMEOUT_MS, `${ACKS_BEFORE_KILL} successful sends`);
    let loadError: unknown = null;
    try {
      await Promise.race([stopped, bound.promise]);
    } catch (err) {
      loadError = err;
    } finally {
      bound.clear();
    }
    // Sends are in flight here: every worker is awaiting its next answer.
    killing = true;
    await server.killProcess();
    await Promise.all(workers);
    if (unexpected !== null) throw new Error(`${unexpected}\n${server.output().slice(-4000)}`);
    if (loadError !== null) throw loadError;
    return { acked: acks, connectionErrors };
  }

  /** The channel's messages as `user` lists them, oldest first. */
  async function listAs(user: TestUser, extraNarrow: Array<{ operator: string; operand: string }> = []): Promise<Listed[]> {
    const narrow = [{ operator: "channel", operand: streamId }, ...extraNarrow];
    const body = expectSuccess(await server.api.get(user, "/messages", { anchor: "oldest", num_before: 0, num_after: 5000, narrow, apply_markdown: false }));
    assert.equal(body.found_newest, true, "one fetch holds the whole channel");
    return body.messages;
  }

  /** Through the API: every acknowledged send is readable by each subscriber, with its content and that subscriber's flags. */
  async function checkThroughApi(round: number): Promise<void> {
    let listedIds: number[] | null = null;
    for (const user of users) {
      const messages = await listAs(user);
      const ids: number[] = messages.map((m) => m.id);
      if (listedIds === null) listedIds = ids;
      else assert.deepEqual(ids, listedIds, `${user.email} sees the same messages as ${users[0].email}`);
      const seen = new Set<string>();
      for (const m of messages) {
        const attempt = attempts.get(m.content);
        assert.ok(attempt, `message ${m.id} is one the load sent: ${JSON.stringify(m)}`);
        assert.ok(!seen.has(m.content), `message ${m.id} is stored once: ${m.content}`);
        seen.add(m.content);
        assert.equal(m.sender_id, attempt.sender.id, `message ${m.id}'s sender`);
        assert.equal(m.subject, attempt.topic, `message ${m.id}'s topic`);
        assert.deepEqual(m.flags, expectedFlags(attempt, user.id), `${user.email}'s flags on message ${m.id} (${m.content})`);
      }
      const listed = new Map<number, Listed>(messages.map((m) => [m.id, m]));
      const lost: number[] = [...acked.keys()].filter((id) => !listed.has(id));
      assert.deepEqual(lost, [], `acknowledged messages ${user.email} cannot read after the crash of round ${round}`);
      for (const [id, attempt] of acked) assert.equal(listed.get(id)?.content, attempt.content, `acknowledged message ${id}'s content`);
    }
    // The search index holds every message.
    const found = (await listAs(users[0], [{ operator: "search", operand: WORD }])).map((m) => m.id);
    assert.deepEqual(found, listedIds, `a search for "${WORD}" finds every message of the channel`);
    // The newest acknowledged send of each sender loop, read one by one as its mentioned user.
    const newest = new Map<string, [number, Attempt]>();
    for (const [id, attempt] of acked) {
      const loop = attempt.topic.replace(/ n\d+$/, "");
      if (attempt.topic.startsWith(`r${round} `) && (newest.get(loop)?.[0] ?? 0) < id) newest.set(loop, [id, attempt]);
    }
    for (const [id, attempt] of newest.values()) {
      const body = expectSuccess(await server.api.get(attempt.mentioned, `/messages/${id}`, { apply_markdown: false }));
      assert.equal(body.message.content, attempt.content);
      assert.deepEqual(body.message.flags, ["mentioned"]);
    }
  }

  /** In the database: every message of the channel is whole, and nothing is left of a message that is not there. */
  async function checkRows(): Promise<void> {
    await withDb(server, async (db) => {
      const messages = await db.selectFrom("messages").select(["id", "sender_id", "topic", "content"]).where("stream_id", "=", streamId).orderBy("id").execute();
      const byId = new Map<number, Attempt>();
      for (const m of messages) {
        const attempt = attempts.get(m.content);
        assert.ok(attempt, `message row ${m.id} is one the load sent`);
        byId.set(m.id, attempt);
      }
      const ids = messages.map((m) => m.id);

      // Flag rows: exactly the send-time rows of each message, none of a missing message.
      const flagRows = await db.selectFrom("user_message_flags").select(["message_id", "user_id", "flags"]).where("message_id", "in", ids).execute();
      const wantFlags = [...byId].flatMap(([id, attempt]) => expectedFlagRows(id, attempt)).sort();
      assert.deepEqual(flagRows.map((r) => `${r.message_id}:${r.user_id}:${r.flags}`).sort(), wantFlags, "each message's flag rows");
      const orphanFlags = await db
        .selectFrom("user_message_flags as f")
        .leftJoin("messages as m", "m.id", "f.message_id")
        .select(["f.message_id", "f.user_id"])
        .where("m.id", "is", null)
        .execute();
      assert.deepEqual(orphanFlags, [], "flag rows of missing messages");

      // Search entries: one per message, none of a missing message.
      if (store === "sqlite") {
        const indexed = await sql<{ id: number }>`select rowid as id from message_search order by rowid`.execute(db);
        const all = await db.selectFrom("messages").select("id").orderBy("id").execute();
        assert.deepEqual(indexed.rows.map((r) => Number(r.id)), all.map((r) => r.id), "message_search holds exactly the messages");
      } else {
        const unindexed = await sql<{ id: number }>`select id from messages where stream_id = ${streamId} and (search_tsv is null or not (search_tsv @@ ${WORD}::tsquery))`.execute(db);
        assert.deepEqual(unindexed.rows, [], "messages without their search vector");
      }

      // Automatic follows: the sender's (they started the topic) and the mentioned user's, nothing for a missing message.
      const topicRows = await db.selectFrom("user_topics").select(["user_id", "topic", "visibility_policy"]).where("stream_id", "=", streamId).execute();
      const wantTopics = [...byId.values()].flatMap((a) => [`${a.sender.id}:${a.topic}:${FOLLOWED}`, `${a.mentioned.id}:${a.topic}:${FOLLOWED}`]).sort();
      assert.deepEqual(topicRows.map((r) => `${r.user_id}:${r.topic}:${r.visibility_policy}`).sort(), wantTopics, "each message's topic follows");

      // Every subscriber received every message (an open subscription period from before the first).
      const periods = await db.selectFrom("subscription_periods").select(["user_id", "first_message_id", "last_message_id"]).where("stream_id", "=", streamId).execute();
      for (const user of users) {
        const open = periods.filter((p) => p.user_id === user.id && p.last_message_id === null && p.first_message_id <= ids[0]);
        assert.equal(open.length, 1, `${user.email}'s subscription period covers the channel's messages`);
      }
      // Concurrent first sends into an empty channel each read first_message_id null; the write keeps the oldest.
      const stream = await db.selectFrom("streams").select("first_message_id").where("id", "=", streamId).executeTakeFirstOrThrow();
      assert.equal(stream.first_message_id, ids[0], "the channel's first_message_id is its oldest message");
    });
  }

  for (let round = 1; round <= ROUNDS; round++) {
    test(`round ${round}: SIGKILL under ${SENDERS} concurrent senders; after a restart every acknowledged send is whole`, async (t) => {
      const before = acked.size;
      const started = Date.now();
      const load = await sendThenKill(round);
      t.diagnostic(`${load.acked} sends acknowledged in ${Date.now() - started} ms, ${load.connectionErrors} cut by the kill`);
      assert.ok(load.connectionErrors > 0, "the kill cut sends in flight");
      assert.equal(acked.size, before + load.acked);
      server.replace(await startServerOnStore(server.store, server.fixtures));
      await checkThroughApi(round);
      await checkRows();
      const stored = (await listAs(users[0])).length;
      t.diagnostic(`${stored} messages stored, ${acked.size} acknowledged (the rest committed with their answer lost in the kill)`);
    });
  }
});

/**
 * A transaction's leading message insert (store/messages/message-inserts.ts, `run.message` of the group
 * committers). On PostgreSQL with one write lane, transactions that queue together form a batch,
 * and a run of them that lead with an insert share one statement: ids in the batch's order, every
 * row and flag row written, and what each was told (whether its topic had messages, its sender's
 * policy) as of the messages before it. A refused row fails nobody in particular: each runs again
 * alone. Transactions without an insert keep their place between runs. On SQLite each
 * transaction inserts its own message in its savepoint. nextMessageId names the id the next
 * insert will draw.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { sql, type Transaction } from "kysely";
import { BatchRolledBackError } from "../../src/errors.ts";
import type { Store } from "../../src/store/db.ts";
import { nextMessageId, type MessageInsert } from "../../src/store/messages/message-inserts.ts";
import { streamRecipientId, type InsertedMessage } from "../../src/store/messages/messages.ts";
import { MESSAGE_FLAG, type Database } from "../../src/store/schema/database.ts";
import { setUserTopic } from "../../src/store/messages/user-topics.ts";
import { getRealm } from "../../src/store/realm/realms.ts";
import { insertStream } from "../../src/store/channels/streams.ts";
import { getUser } from "../../src/store/users/users.ts";
import { newStreamGroupSettings } from "../../src/actions/channels/settings.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

/** What a message transaction saw: what its insert told it, its transaction's id (PostgreSQL), and the messages of its topic. */
type Seen = { inserted: InsertedMessage; txid: string | null; topicMessages: number };

for (const kind of STORES) {
  describe(`leading message inserts [${kind}]`, () => {
    let store: Store;
    let fx: Fixtures;
    let streamId: number;
    let recipientId: number;
    useMigratedStore(kind, { fixtures: true, groupCommitMax: 8, pgWriteLanes: 1 }, (s) => {
      ({ store, fixtures: fx } = s);
    });
    before(async () => {
      const realm = await getRealm(store.db, fx.realmId);
      const owner = await getUser(store.db, fx.realmId, fx.owner.id);
      assert.ok(realm && owner);
      const stream = await insertStream(store.db, {
        realm_id: fx.realmId, name: "inserts", description: "", rendered_description: "", invite_only: 0, is_web_public: 0, history_public_to_subscribers: 1,
        message_retention_days: null, date_created: 0, creator_id: owner.id, is_archived: 0, first_message_id: null,
        ...(await newStreamGroupSettings(store.db, realm, owner, {})),
      });
      assert.ok(stream);
      streamId = stream.id;
      recipientId = await streamRecipientId(store.db, fx.realmId, streamId);
      await setUserTopic(store.db, fx.realmId, { userId: fx.admin.id, streamId, topic: "Kept", policy: 3, now: 0 });
    });

    const txid = async (tx: Transaction<Database>) =>
      kind === "postgres" ? (await sql<{ id: string }>`select txid_current()::text as id`.execute(tx)).rows[0].id : null;
    const topicMessages = async (tx: Transaction<Database>, topic: string) =>
      (await tx.selectFrom("messages").select("id").where("stream_id", "=", streamId).where(sql<string>`lower(topic)`, "=", topic.toLowerCase()).execute()).length;

    /** A channel message's insert; `reserved` records each reservation's id as it is filled. */
    const insert = (senderId: number, topic: string, content: string, reserved?: number[]): MessageInsert => ({
      row: {
        realm_id: fx.realmId, sender_id: senderId, recipient_id: recipientId, stream_id: streamId, topic, content, rendered_content: `<p>${content}</p>`,
        date_sent: 1_700_000_000, sending_client: "test", last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0,
        has_link: 0, has_image: 0, has_attachment: 0, stream_wildcard_mention: 0,
      },
      flags: new Map([[senderId, MESSAGE_FLAG.read]]),
      topicPolicyUsers: [senderId],
      reserve: () => (id) => reserved?.push(id),
    });

    /** A transaction leading with `message`, run as withTransaction does: again alone when its batch was rolled back for another. */
    async function send(message: MessageInsert): Promise<Seen> {
      const fn = async (tx: Transaction<Database>, inserted: InsertedMessage | undefined): Promise<Seen> => {
        assert.ok(inserted, "the committer inserted the message first");
        return { inserted, txid: await txid(tx), topicMessages: await topicMessages(tx, message.row.topic) };
      };
      try {
        return await store.transact(fn, { message });
      } catch (error) {
        if (!(error instanceof BatchRolledBackError)) throw error;
        return store.transact(fn, { message, alone: true });
      }
    }

    /** A transaction without an insert, counting the messages of `topic` it sees. */
    const count = (topic: string) => store.transact(async (tx) => ({ txid: await txid(tx), topicMessages: await topicMessages(tx, topic) }));

    test("a run of sends: ids in order, rows and flag rows written, each told as of the messages before it", async () => {
      const reserved: number[] = [];
      const [first, ...batch] = await Promise.all([
        count("Fresh"),
        send(insert(fx.member.id, "Fresh", "one", reserved)),
        send(insert(fx.admin.id, "fresh", "two", reserved)),
        send(insert(fx.member.id, "FRESH", "three", reserved)),
        send(insert(fx.admin.id, "Kept", "four", reserved)),
      ]);
      assert.equal(first.topicMessages, 0);
      const ids = batch.map((s) => s.inserted.message.id);
      assert.deepEqual([...ids].sort((a, b) => a - b), ids, "ids in the order of the calls");
      assert.deepEqual(reserved, ids, "each reservation filled with its id");
      const told = batch.map((s) => [s.inserted.topicHadMessages, s.inserted.senderTopicPolicy]);
      if (kind === "postgres") {
        assert.equal(new Set(batch.map((s) => s.txid)).size, 1, "one batch");
        // The admin's policy is read (the member's send sets only the member's); the member's
        // second send in the topic must read its own after the first one's transaction ran.
        assert.deepEqual(told, [[false, null], [true, null], [true, undefined], [false, 3]]);
        // Every message of the run is written before the first transaction goes on.
        assert.deepEqual(batch.map((s) => s.topicMessages), [3, 3, 3, 1]);
        const vectors = await sql<{ v: string | null }>`select search_tsv::text as v from messages where id in (${sql.join(ids)}) order by id`.execute(store.db);
        assert.ok(vectors.rows.every((r) => r.v !== null && r.v.length > 0), "search vectors written");
      } else {
        assert.deepEqual(told, [[undefined, undefined], [undefined, undefined], [undefined, undefined], [undefined, undefined]]);
        assert.deepEqual(batch.map((s) => s.topicMessages), [1, 2, 3, 1]);
      }
      const rows = await store.db.selectFrom("messages").select(["id", "sender_id", "topic", "content", "rendered_content"]).where("id", "in", ids).orderBy("id").execute();
      assert.deepEqual(rows.map((r) => [r.sender_id, r.topic, r.content, r.rendered_content]), [
        [fx.member.id, "Fresh", "one", "<p>one</p>"],
        [fx.admin.id, "fresh", "two", "<p>two</p>"],
        [fx.member.id, "FRESH", "three", "<p>three</p>"],
        [fx.admin.id, "Kept", "four", "<p>four</p>"],
      ]);
      const flags = await store.db.selectFrom("user_message_flags").select(["message_id", "user_id", "flags"]).where("message_id", "in", ids).orderBy("message_id").execute();
      assert.deepEqual(flags.map((f) => [f.message_id, f.user_id, f.flags]), batch.map((s) => [s.inserted.message.id, s.inserted.message.sender_id, MESSAGE_FLAG.read]));
    });

    test("a refused row fails nobody in particular: each runs again alone, and only its own send fails", async () => {
      const results = await Promise.allSettled([
        count("Refusal"),
        send(insert(fx.member.id, "Refusal", "kept before")),
        send(insert(2_000_000_000, "Refusal", "no such sender")),
        send(insert(fx.admin.id, "Refusal", "kept after")),
      ]);
      assert.equal(results[0].status, "fulfilled");
      assert.equal(results[1].status, "fulfilled");
      assert.ok(results[2].status === "rejected" && /foreign key/i.test(String(results[2].reason)), String(results[2].status === "rejected" && results[2].reason));
      assert.equal(results[3].status, "fulfilled");
      // The two run again side by side, each alone: either may take the lower id, as two
      // concurrent sends may.
      const contents = await store.db.selectFrom("messages").select("content").where("topic", "=", "Refusal").execute();
      assert.deepEqual(contents.map((r) => r.content).sort(), ["kept after", "kept before"]);
    });

    test("transactions without an insert keep their place between runs of sends", async () => {
      const [, , between, , , last] = await Promise.all([
        count("Places"),
        send(insert(fx.member.id, "Places", "a")),
        count("Places"),
        send(insert(fx.admin.id, "Places", "b")),
        send(insert(fx.owner.id, "Places", "c")),
        count("Places"),
      ]);
      assert.equal(between.topicMessages, 1, "the second run's messages come after it");
      assert.equal(last.topicMessages, 3);
      if (kind === "postgres") assert.equal(between.txid, last.txid, "one batch");
    });

    test("nextMessageId names the id the next insert draws, after a rolled-back insert too", async () => {
      const next = await nextMessageId(store.db, store.engine);
      assert.equal((await send(insert(fx.member.id, "Next", "drawn"))).inserted.message.id, next);
      await assert.rejects(
        store.transact(async () => {
          throw new Error("rolled back");
        }, { message: insert(fx.member.id, "Next", "rolled back") }),
        /rolled back/,
      );
      const after = await nextMessageId(store.db, store.engine);
      assert.ok(after > next);
      assert.equal((await send(insert(fx.member.id, "Next", "drawn after"))).inserted.message.id, after);
    });
  });
}

/**
 * Lists of any length in SQL (store/engine/chunks.ts). SQLite binds at most 32,766 values per statement
 * and PostgreSQL 65,535: every store query that takes a list runs it in chunks, or writes a long
 * id list into its SQL as literals where the query cannot be cut. Here: the chunking helpers; every
 * list-taking store function run with 70,000 ids on each store, in a transaction rolled back;
 * and a scan of src/store that fails on an `in` list not taken from a chunk, so a new query
 * cannot bring the limit back.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from "kysely";
import { MESSAGE_FLAG, type Database } from "../../src/store/schema/database.ts";
import { chunked, collectChunks, idChunks, idListSql, LIST_CHUNK, rowChunks, valueChunks } from "../../src/store/engine/chunks.ts";
import type { Store } from "../../src/store/db.ts";
import type { Db } from "../../src/store/schema/types.ts";
import { attachmentsByIds, attachmentsByPaths, deleteAttachments, linkedMessages, unlinkAttachments, unlinkMessages } from "../../src/store/messages/attachments.ts";
import { profileValuesByUser } from "../../src/store/realm/custom-profile.ts";
import { deleteFlagRowsOfMessages, writeFlagBits } from "../../src/store/messages/flag-writes.ts";
import { loadGroupIndexFor, settingGroupIndex } from "../../src/store/groups/group-index.ts";
import { flagRowsOfMessages, flagRowUserIds, messageFlagRows, receivedIds, storedFlags } from "../../src/store/messages/message-flags.ts";
import { inRecipientsSql, inStreamsSql } from "../../src/store/messages/message-narrow.ts";
import { deleteMessageRows, directRecipientMembers, getMessages } from "../../src/store/messages/messages.ts";
import { unmutedSql, visibleSql } from "../../src/store/messages/narrow-visibility.ts";
import { deleteReactionsOfMessages, reactionsOfMessages } from "../../src/store/messages/reactions.ts";
import { subscriberCounts } from "../../src/store/channels/stream-stats.ts";
import { getStreamsByIds, streamsByNames } from "../../src/store/channels/streams.ts";
import { deleteSubmessagesOfMessages, submessagesOfMessages } from "../../src/store/messages/submessages.ts";
import {
  activeUsersByEmails,
  activeUsersByIds,
  setSubscribersActive,
  setSubscriptionsActive,
  subscriberIdsByStream,
  subscriptionColorsByUser,
  subscriptionsOfUsers,
} from "../../src/store/channels/subscriptions.ts";
import {
  addMembers,
  directSupergroupIds,
  groupsByIds,
  groupsByNames,
  groupsWithSettingIn,
  recursiveSubgroupIds,
  removeMembers,
  removeSubgroups,
  streamsWithSettingIn,
} from "../../src/store/groups/user-groups.ts";
import { topicFollowerIds } from "../../src/store/messages/user-topics.ts";
import { servicesByBot, setUsersActive, userRolesByIds, usersByIds, usersByIdsOrEmails, usersByNamesOrIds } from "../../src/store/users/users.ts";
import { unindexMessages } from "../../src/store/messages/search-index.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

const STORE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/store");
/** Past both engines' limits (SQLite 32,766 bound values, PostgreSQL 65,535). */
const HUGE = 70_000;
const ids = Array.from({ length: HUGE }, (_, i) => i + 1);
const texts = ids.map((i) => `name ${i}`);

describe("chunking helpers", () => {
  test("ids: distinct, ascending, in chunks of LIST_CHUNK", () => {
    assert.deepEqual(idChunks([]), []);
    assert.deepEqual(idChunks([7]), [[7]]);
    assert.deepEqual(idChunks([3, 1, 3, 2, 1]), [[1, 2, 3]]);
    const chunks = idChunks([...ids].reverse().concat(ids));
    assert.equal(chunks.length, Math.ceil(HUGE / LIST_CHUNK));
    assert.ok(chunks.slice(0, -1).every((c) => c.length === LIST_CHUNK));
    assert.deepEqual(chunks.flat(), ids);
  });

  test("values keep their first order; rows are cut by their bound values", () => {
    assert.deepEqual(valueChunks(["b", "a", "b"]), [["b", "a"]]);
    assert.deepEqual(chunked([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    const rows = ids.map((id) => ({ a: id, b: id, c: id, d: id, e: id }));
    const chunks = rowChunks(rows);
    assert.ok(chunks.every((c) => c.length * 5 <= 5000));
    assert.equal(chunks.flat().length, HUGE);
  });

  test("collectChunks concatenates in chunk order", async () => {
    assert.deepEqual(await collectChunks([[1, 2], [3]], async (c) => c.map((x) => x * 10)), [10, 20, 30]);
    assert.deepEqual(await collectChunks([], async () => [1]), []);
  });

  test("a long id list is written as integer literals, and only integers are", () => {
    const dummy = new Kysely<Database>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    });
    const short = sql`select ${idListSql([4, 5])}`.compile(dummy);
    assert.deepEqual([short.sql, short.parameters], ["select ?, ?", [4, 5]]);
    // Past EXACT_LIST_MAX, padded to a power of two with its last id (one SQL text for many lengths).
    const padded = sql`select ${idListSql([1, 2, 3, 4, 5, 6, 7, 8, 9])}`.compile(dummy);
    assert.deepEqual(padded.parameters, [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9]);
    const long = sql`select ${idListSql(ids)}`.compile(dummy);
    assert.deepEqual(long.parameters, []);
    assert.ok(long.sql.startsWith("select 1, 2, 3, "));
    assert.throws(() => idListSql([...ids.slice(0, LIST_CHUNK), 1.5]), /not an id/);
    assert.throws(() => idListSql([...ids.slice(0, LIST_CHUNK), Number.NaN]), /not an id/);
  });
});

/** `"in", <argument>` in a store source, with the argument's text. */
const IN_LIST = /,\s*"(?:not )?in",\s*([^)\n]+?)\)/g;

describe("every `in` list of src/store comes from a chunk", () => {
  // Lists with a fixed small bound: the two spellings of a direct conversation's key.
  const BOUNDED: ReadonlySet<string> = new Set(["messages.ts: keys"]);

  test("no store query binds a caller's whole list", () => {
    const offenders: string[] = [];
    const scan = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== "migrations") scan(full);
          continue;
        }
        if (!entry.name.endsWith(".ts")) continue;
        const text = fs.readFileSync(full, "utf8");
        for (const match of text.matchAll(IN_LIST)) {
          const arg = match[1].trim();
          if (arg === "chunk" || BOUNDED.has(`${entry.name}: ${arg}`)) continue;
          offenders.push(`${path.relative(STORE_DIR, full)}: "in", ${arg}`);
        }
      }
    };
    scan(STORE_DIR);
    assert.deepEqual(offenders, [], "run lists through collectChunks/eachChunk (store/engine/chunks.ts)");
  });
});

for (const kind of STORES) {
  describe(`store functions with 70,000 ids [${kind}]`, () => {
    let fixtures: Fixtures;
    let store: Store;
    useMigratedStore(kind, { fixtures: true }, (s) => {
      ({ store, fixtures } = s);
    });

    /** Runs `fn` in a transaction that is rolled back, and bounds its time. */
    async function rolledBack(what: string, fn: (tx: Db) => Promise<unknown>): Promise<void> {
      const started = performance.now();
      const rollback = new Error("rollback");
      await assert.rejects(
        store.db.transaction().execute(async (tx) => {
          await fn(tx);
          throw rollback;
        }),
        (e) => e === rollback,
        what,
      );
      const ms = performance.now() - started;
      assert.ok(ms < 5000, `${what}: ${Math.round(ms)} ms`);
    }

    test("reads", async () => {
      const realm = fixtures.realmId;
      const reads: Array<[string, (tx: Db) => Promise<unknown>]> = [
        ["usersByIds", async (tx) => assert.equal((await usersByIds(tx, realm, ids)).length, 6)],
        ["userRolesByIds", (tx) => userRolesByIds(tx, realm, ids, { activeOnly: true })],
        ["usersByIdsOrEmails", (tx) => usersByIdsOrEmails(tx, realm, ids, texts)],
        ["usersByNamesOrIds", (tx) => usersByNamesOrIds(tx, realm, texts, ids)],
        ["servicesByBot", (tx) => servicesByBot(tx, realm, ids)],
        ["activeUsersByIds", (tx) => activeUsersByIds(tx, realm, ids)],
        ["activeUsersByEmails", (tx) => activeUsersByEmails(tx, realm, texts)],
        ["getStreamsByIds", (tx) => getStreamsByIds(tx, realm, ids)],
        ["streamsByNames", (tx) => streamsByNames(tx, realm, texts)],
        ["attachmentsByIds", (tx) => attachmentsByIds(tx, realm, ids)],
        ["attachmentsByPaths", (tx) => attachmentsByPaths(tx, realm, texts)],
        ["linkedMessages", (tx) => linkedMessages(tx, ids)],
        ["reactionsOfMessages", (tx) => reactionsOfMessages(tx, realm, ids)],
        ["submessagesOfMessages", (tx) => submessagesOfMessages(tx, ids)],
        ["subscriberCounts", (tx) => subscriberCounts(tx, realm, ids)],
        ["subscriberIdsByStream", (tx) => subscriberIdsByStream(tx, realm, ids)],
        ["subscriptionsOfUsers", (tx) => subscriptionsOfUsers(tx, realm, 1, ids)],
        ["subscriptionColorsByUser", (tx) => subscriptionColorsByUser(tx, realm, ids)],
        ["storedFlags", (tx) => storedFlags(tx, fixtures.member.id, ids)],
        ["messageFlagRows", (tx) => messageFlagRows(tx, 1, ids)],
        ["flagRowsOfMessages", (tx) => flagRowsOfMessages(tx, ids)],
        ["flagRowUserIds", (tx) => flagRowUserIds(tx, ids)],
        [
          "receivedIds",
          (tx) => receivedIds(tx, fixtures.member.id, ids.map((id) => ({ id, sender_id: fixtures.owner.id, stream_id: id % 2 ? id : null, recipient_id: id, stream_wildcard_mention: 0 }))),
        ],
        ["getMessages", (tx) => getMessages(tx, realm, ids)],
        ["directRecipientMembers", (tx) => directRecipientMembers(tx, ids)],
        ["groupsByIds", (tx) => groupsByIds(tx, realm, ids)],
        ["groupsByNames", (tx) => groupsByNames(tx, realm, texts)],
        ["directSupergroupIds", (tx) => directSupergroupIds(tx, ids)],
        ["recursiveSubgroupIds", (tx) => recursiveSubgroupIds(tx, ids)],
        ["groupsWithSettingIn", (tx) => groupsWithSettingIn(tx, realm, ids)],
        ["streamsWithSettingIn", (tx) => streamsWithSettingIn(tx, realm, ["can_send_message_group_id", "can_administer_channel_group_id"], ids)],
        ["loadGroupIndexFor", (tx) => loadGroupIndexFor(tx, realm, ids)],
        ["settingGroupIndex", (tx) => settingGroupIndex(tx, realm, ids)],
        ["profileValuesByUser", (tx) => profileValuesByUser(tx, realm, ids)],
        ["topicFollowerIds", (tx) => topicFollowerIds(tx, realm, 1, texts)],
        // Conditions inside a narrow's range query, which cannot run per chunk: written as literals.
        ["inStreamsSql", (tx) => tx.selectFrom("messages").select("id").where(inStreamsSql(ids)).execute()],
        ["inRecipientsSql", (tx) => tx.selectFrom("messages").select("id").where(inRecipientsSql(ids)).execute()],
        ["visibleSql", (tx) => tx.selectFrom("messages").select("id").where(visibleSql(fixtures.member.id, ids)).execute()],
        ["unmutedSql", (tx) => tx.selectFrom("messages").select("id").where(unmutedSql(fixtures.member.id, ids)).execute()],
      ];
      for (const [what, read] of reads) await rolledBack(what, read);
    });

    test("writes", async () => {
      const realm = fixtures.realmId;
      const writes: Array<[string, (tx: Db) => Promise<unknown>]> = [
        ["setUsersActive", (tx) => setUsersActive(tx, realm, ids, true)],
        ["setSubscribersActive", (tx) => setSubscribersActive(tx, realm, ids, false)],
        ["setSubscriptionsActive", (tx) => setSubscriptionsActive(tx, realm, ids, 0)],
        ["unlinkAttachments", (tx) => unlinkAttachments(tx, 1, ids)],
        ["unlinkMessages", (tx) => unlinkMessages(tx, ids)],
        ["deleteAttachments", (tx) => deleteAttachments(tx, ids)],
        ["deleteReactionsOfMessages", (tx) => deleteReactionsOfMessages(tx, ids)],
        ["deleteSubmessagesOfMessages", (tx) => deleteSubmessagesOfMessages(tx, ids)],
        ["deleteFlagRowsOfMessages", (tx) => deleteFlagRowsOfMessages(tx, ids)],
        // Back to a default that is read (the sender's): the rows go (an unread default keeps its row).
        ["writeFlagBits (deletes)", (tx) => writeFlagBits(tx, fixtures.member.id, ids.map((messageId) => ({ messageId, bits: MESSAGE_FLAG.read, defaultBits: MESSAGE_FLAG.read })))],
        ["deleteMessageRows", (tx) => deleteMessageRows(tx, realm, ids)],
        ["removeMembers", (tx) => removeMembers(tx, 1, ids)],
        ["removeSubgroups", (tx) => removeSubgroups(tx, 1, ids)],
        ["unindexMessages", (tx) => unindexMessages(tx, kind, ids)],
      ];
      for (const [what, write] of writes) await rolledBack(what, write);
    });

    test("a multi-row insert of 70,000 rows", async () => {
      await rolledBack("addMembers", async (tx) => {
        const users = await tx.selectFrom("users").select("id").execute();
        // Existing users only (the table's foreign key), repeated: one row each, the rest skipped.
        const wanted = Array.from({ length: HUGE }, (_, i) => users[i % users.length].id);
        const group = await tx.selectFrom("user_groups").select("id").where("name", "=", "role:nobody").executeTakeFirstOrThrow();
        const added = await addMembers(tx, group.id, wanted);
        assert.deepEqual(added.sort((a, b) => a - b), users.map((u) => u.id).sort((a, b) => a - b));
      });
    });
  });
}

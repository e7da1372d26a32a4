/**
 * The read cache (store/engine/read-cache.ts) and the write counters behind it (store/engine/table-versions.ts):
 * a cached read never returns what a later write changed, whether the write came through this
 * store (alone, in a group-commit batch, in a job that was rolled back) or from another
 * connection; callers get copies. On PostgreSQL every pooled connection reports its writes and
 * other processes' commits arrive as trigger notifications (store/engine/pg-table-versions.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import path from "node:path";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import pg from "pg";
import { sql } from "kysely";
import { NOTIFYING_TABLES } from "../../src/store/migrations/0024-table-notify.ts";
import { REALM_NOTIFYING_TABLES } from "../../src/store/migrations/0026-realm-table-notify.ts";
import { USER_NOTIFYING_TABLES } from "../../src/store/migrations/0030-user-table-notify.ts";
import { PUSH_NOTIFYING_TABLES } from "../../src/store/migrations/0031-push-token-relay.ts";
import { SIGNUP_NOTIFYING_TABLES } from "../../src/store/migrations/0032-signup-checks.ts";
import { PgTableVersions } from "../../src/store/engine/pg-table-versions.ts";
import { CACHED_TABLES, syncReadCache } from "../../src/store/engine/read-cache.ts";
import { getRealm } from "../../src/store/realm/realms.ts";
import { listChannelFolders } from "../../src/store/channels/channel-folders.ts";
import { listProfileFields, realmProfileValues } from "../../src/store/realm/custom-profile.ts";
import { listPlaygrounds } from "../../src/store/realm/playgrounds.ts";
import { listRealmEmoji } from "../../src/store/realm/realm-emoji.ts";
import { getRealmUserDefaults } from "../../src/store/users/settings.ts";
import { listShownStatuses } from "../../src/store/users/user-status.ts";
import { listAlertWords } from "../../src/store/users/alert-words.ts";
import { listMutedUsers } from "../../src/store/users/muted-users.ts";
import { listNavigationViews } from "../../src/store/users/navigation-views.ts";
import { pushDevicesOf } from "../../src/store/push/push.ts";
import { listSavedSnippets } from "../../src/store/users/saved-snippets.ts";
import { listUndeliveredScheduledMessages } from "../../src/store/messages/scheduled-messages.ts";
import { DELIVERY_TYPE } from "../../src/store/schema/drafts.ts";
import type { Db } from "../../src/store/schema/types.ts";
import { TableVersions } from "../../src/store/engine/table-versions.ts";
import { freshStore, STORES, type FreshStore } from "../helpers/stores.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("table versions", () => {
  test("a write moves only its table's stamp, before it runs and again when it is settled", async () => {
    const versions = new TableVersions(() => 0);
    const users = versions.stamp(["users"]);
    const realms = versions.stamp(["realms"]);
    versions.beforeStatement(`update "users" set "full_name" = ? where "id" = ?`, false);
    const during = versions.stamp(["users"]);
    assert.notDeepEqual(during, users);
    assert.equal(versions.settled(["users"]), false);
    assert.deepEqual(versions.stamp(["realms"]), realms);
    await tick();
    assert.notDeepEqual(versions.stamp(["users"]), during);
    assert.equal(versions.settled(["users"]), true);
  });

  test("writes in a transaction stay pending until COMMIT; ROLLBACK TO moves them again but keeps them pending", async () => {
    const versions = new TableVersions(() => 0);
    versions.beforeStatement("begin", false);
    versions.beforeStatement(`insert into "subscriptions" ("user_id") values (?)`, true);
    const written = versions.stamp(["subscriptions"]);
    versions.beforeStatement("rollback to savepoint job", true);
    await tick();
    assert.notDeepEqual(versions.stamp(["subscriptions"]), written);
    assert.equal(versions.settled(["subscriptions"]), false);
    const rolledBack = versions.stamp(["subscriptions"]);
    versions.beforeStatement("commit", true);
    await tick();
    assert.notDeepEqual(versions.stamp(["subscriptions"]), rolledBack);
    assert.equal(versions.settled(["subscriptions"]), true);
  });

  test("reads leave stamps alone; unknown statements and other processes' commits move every stamp", async () => {
    let external = 1;
    const versions = new TableVersions(() => external);
    const before = versions.stamp(["users", "realms"]);
    for (const sql of [`select * from "users"`, "with recursive sub(id) as (select 1) select * from sub", "savepoint job", "release savepoint job", "pragma data_version"]) {
      versions.beforeStatement(sql, false);
    }
    assert.deepEqual(versions.stamp(["users", "realms"]), before);
    versions.beforeStatement("create index x on users (full_name)", false);
    const afterDdl = versions.stamp(["realms"]);
    assert.notDeepEqual(afterDdl, before);
    await tick();
    external = 2;
    assert.notDeepEqual(versions.stamp(["realms"]), afterDdl);
    versions.beforeStatement("insert into message_search (rowid, topic, content) values (?, ?, ?)", false);
    assert.equal(versions.settled(["message_search"]), false);
    assert.equal(versions.settled(["realms"]), true);
  });
});

test("a `with` query that writes moves the stamps of the tables it writes, and no others", async () => {
  const versions = new TableVersions(() => 0);
  const realms = versions.stamp(["realms"]);
  const flags = versions.stamp(["user_message_flags"]);
  const messages = versions.stamp(["messages"]);
  versions.beforeStatement(`with "inserted" as (insert into "messages" ("topic") values (?) returning "id") insert into "user_message_flags" ("message_id") select "id" from "inserted"`, false);
  assert.notDeepEqual(versions.stamp(["messages"]), messages);
  assert.notDeepEqual(versions.stamp(["user_message_flags"]), flags);
  assert.deepEqual(versions.stamp(["realms"]), realms);
  await tick();
  versions.beforeStatement(`with recursive sub(id) as (select 1) delete from "muted_users" where id in (select id from sub)`, false);
  assert.deepEqual(versions.stamp(["realms"]), realms);
  assert.equal(versions.settled(["muted_users"]), false);
});

describe("PostgreSQL table versions", () => {
  const conn = () => ({ inTransaction: false, pending: new Set<string>(), pendingAny: false });

  test("nothing is kept or served until the listener hears commits", () => {
    const versions = new PgTableVersions();
    assert.notDeepEqual(versions.stamp(["users"]), versions.stamp(["users"]));
    assert.equal(versions.settled(["users"]), false);
    versions.setListening(true);
    assert.deepEqual(versions.stamp(["users"]), versions.stamp(["users"]));
    assert.equal(versions.settled(["users"]), true);
  });

  test("a write is pending on every connection until its own transaction ends; a write alone until it returns", () => {
    const versions = new PgTableVersions();
    versions.setListening(true);
    const a = conn();
    const b = conn();
    versions.beforeStatement(a, "begin");
    versions.beforeStatement(a, `update "users" set "full_name" = $1 where "id" = $2`);
    versions.beforeStatement(b, "begin");
    versions.beforeStatement(b, `delete from "users" where "id" = $1`);
    const during = versions.stamp(["users"]);
    versions.beforeStatement(a, "commit")?.();
    assert.notDeepEqual(versions.stamp(["users"]), during);
    assert.equal(versions.settled(["users"]), false, "b still has a write to users open");
    versions.beforeStatement(b, "rollback")?.();
    assert.equal(versions.settled(["users"]), true);
    const returned = versions.beforeStatement(conn(), `insert into "realms" ("name") values ($1)`);
    assert.equal(versions.settled(["realms"]), false);
    const stamp = versions.stamp(["realms"]);
    returned?.();
    assert.equal(versions.settled(["realms"]), true);
    assert.notDeepEqual(versions.stamp(["realms"]), stamp);
  });

  test("another process's commit, named by its notification, moves that table's stamp only", () => {
    const versions = new PgTableVersions();
    versions.setListening(true);
    const users = versions.stamp(["users"]);
    const realms = versions.stamp(["realms"]);
    versions.noteCommitted("users");
    assert.notDeepEqual(versions.stamp(["users"]), users);
    assert.deepEqual(versions.stamp(["realms"]), realms);
  });
});

test("every table a cached read depends on has PostgreSQL's commit trigger (migrations 0024, 0026 and 0030), once", async () => {
  // Loading the store modules registers their cached reads.
  const fs = await import("node:fs");
  const dir = path.resolve(import.meta.dirname, "../../src/store");
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".ts"))) await import(path.join(dir, file));
  assert.ok(CACHED_TABLES.size > 5);
  const lists: readonly string[] = [...NOTIFYING_TABLES, ...REALM_NOTIFYING_TABLES, ...USER_NOTIFYING_TABLES, ...PUSH_NOTIFYING_TABLES, ...SIGNUP_NOTIFYING_TABLES];
  const watched = new Set(lists);
  assert.equal(watched.size, lists.length, "a table in two migrations' lists would get a second trigger of the same name");
  assert.deepEqual([...CACHED_TABLES].filter((t) => !watched.has(t)), []);
});

for (const kind of STORES) {
  describe(`cached reads [${kind}]`, () => {
    let fresh: FreshStore;
    let store: Store;
    let realmId: number;
    before(async () => {
      fresh = await freshStore(kind);
      store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
      await migrate(store);
      const row = await store.db
        .insertInto("realms")
        .values({ string_id: "cache", name: "Before", description: "", date_created: 0, deactivated: 0, settings: "{}" })
        .returning("id")
        .executeTakeFirstOrThrow();
      realmId = row.id;
    });
    after(async () => {
      await store?.close();
      await fresh?.drop();
    });

    const rename = (name: string) => store.db.updateTable("realms").set({ name }).where("id", "=", realmId).execute();

    test("a write through the store is seen by the next read, on either connection", async () => {
      assert.equal((await getRealm(store.reader, realmId))?.name, "Before");
      await rename("After");
      assert.equal((await getRealm(store.reader, realmId))?.name, "After");
      assert.equal((await getRealm(store.db, realmId))?.name, "After");
    });

    test("a transaction reads its own write; a rolled-back job's write is not kept by anyone", async () => {
      await rename("Committed");
      assert.equal((await getRealm(store.reader, realmId))?.name, "Committed");
      const results = await Promise.allSettled([
        store.transact(async (tx) => {
          await tx.updateTable("realms").set({ name: "Refused" }).where("id", "=", realmId).execute();
          assert.equal((await getRealm(tx, realmId))?.name, "Refused");
          throw new Error("refused");
        }),
        store.transact(async (tx) => (await getRealm(tx, realmId))?.name),
      ]);
      assert.equal(results[0].status, "rejected");
      assert.deepEqual(results[1], { status: "fulfilled", value: "Committed" });
      assert.equal((await getRealm(store.reader, realmId))?.name, "Committed");
    });

    test("callers get their own copy", async () => {
      const first = await getRealm(store.reader, realmId);
      assert.ok(first);
      first.name = "Changed by a caller";
      assert.equal((await getRealm(store.reader, realmId))?.name, "Committed");
    });

    if (kind === "postgres") {
      test("reads are served from the cache; a commit by another process is noticed when its notification arrives", async () => {
        const before = (await getRealm(store.reader, realmId))?.name;
        const other = new pg.Client({ connectionString: fresh.databaseUrl ?? "" });
        await other.connect();
        const listening = new pg.Client({ connectionString: fresh.databaseUrl ?? "" });
        await listening.connect();
        try {
          // With triggers off (replica mode) the write is silent: the cache keeps serving the old row.
          await other.query("set session_replication_role = replica");
          await other.query("update realms set name = $1 where id = $2", ["Silent", realmId]);
          await other.query("set session_replication_role = origin");
          assert.equal((await getRealm(store.reader, realmId))?.name, before);
          await listening.query("listen parley_tables");
          const heard = new Promise((resolve) => listening.once("notification", resolve));
          await other.query("update realms set name = $1 where id = $2", ["From elsewhere", realmId]);
          await heard;
          // The store's own listener gets the same notification at about the same time.
          for (let i = 0; i < 200 && (await getRealm(store.reader, realmId))?.name !== "From elsewhere"; i++) await new Promise((r) => setTimeout(r, 5));
          assert.equal((await getRealm(store.reader, realmId))?.name, "From elsewhere");
        } finally {
          await listening.end();
          await other.end();
        }
      });
    }

    if (kind === "sqlite") {
      test("a commit by another connection (another process) is noticed", async () => {
        assert.equal((await getRealm(store.reader, realmId))?.name, "Committed");
        const other = new Database(path.join(fresh.dataDir, "parley.db"));
        try {
          other.prepare("update realms set name = ? where id = ?").run("From elsewhere", realmId);
        } finally {
          other.close();
        }
        // Other processes' commits are looked for once per turn of the event loop.
        await tick();
        assert.equal((await getRealm(store.reader, realmId))?.name, "From elsewhere");
      });
    }

    /** Runs statements as another process would: its own connection, without this store's knowledge. */
    async function elsewhere(statements: string[]): Promise<void> {
      if (kind === "sqlite") {
        const other = new Database(path.join(fresh.dataDir, "parley.db"));
        try {
          for (const statement of statements) other.exec(statement);
        } finally {
          other.close();
        }
        await tick();
        return;
      }
      const other = new pg.Client({ connectionString: fresh.databaseUrl ?? "" });
      await other.connect();
      try {
        for (const statement of statements) await other.query(statement);
      } finally {
        await other.end();
      }
      await syncReadCache(store.db);
    }

    // The realm-wide reads of every register (migration 0026 has their tables notify): each is
    // cached, and another process's commit to its table is seen by the next read.
    const registerReads: Array<[table: string, read: (db: Db) => Promise<unknown>, insert: (userId: number) => string]> = [
      ["realm_emoji", (db) => listRealmEmoji(db, realmId), () => `insert into realm_emoji (realm_id, name, file_name, author_id, deactivated, is_animated) values (${realmId}, 'wave', '1.png', null, 0, 0)`],
      ["realm_playgrounds", (db) => listPlaygrounds(db, realmId), () => `insert into realm_playgrounds (realm_id, name, pygments_language, url_template) values (${realmId}, 'P', 'py', 'https://p.example/{code}')`],
      ["channel_folders", (db) => listChannelFolders(db, realmId), () => `insert into channel_folders (realm_id, name, description, rendered_description, date_created, creator_id, is_archived, "order") values (${realmId}, 'F', '', '', 0, null, 0, 0)`],
      ["custom_profile_fields", (db) => listProfileFields(db, realmId), () => `insert into custom_profile_fields (realm_id, name, hint, field_type, field_data, "order", display_in_profile_summary, required, editable_by_user) values (${realmId}, 'Team', '', 1, '', 1, 0, 0, 1)`],
      ["custom_profile_values", async (db) => [...(await realmProfileValues(db, realmId))], (userId) => `insert into custom_profile_values (realm_id, user_id, field_id, value, rendered_value) select ${realmId}, ${userId}, id, 'Blue', null from custom_profile_fields where realm_id = ${realmId}`],
      ["realm_user_defaults", (db) => getRealmUserDefaults(db, realmId), () => `insert into realm_user_defaults (realm_id, settings) values (${realmId}, '{"enter_sends":true}')`],
      ["user_status", (db) => listShownStatuses(db, realmId), (userId) => `insert into user_status (user_id, realm_id, status_text, emoji_name, emoji_code, reaction_type, timestamp) values (${userId}, ${realmId}, 'Lunch', '', '', 'unicode_emoji', 0)`],
    ];

    // The per-user reads of the register, for the user `userId` whose direct recipient is `recipientId`.
    const userReads = (userId: number, recipientId: number): typeof registerReads => [
      ["alert_words", (db) => listAlertWords(db, realmId, userId), () => `insert into alert_words (realm_id, user_id, word) values (${realmId}, ${userId}, 'deploy')`],
      ["muted_users", (db) => listMutedUsers(db, realmId, userId), () => `insert into muted_users (realm_id, user_id, muted_user_id, date_muted) values (${realmId}, ${userId}, ${userId}, 0)`],
      ["saved_snippets", (db) => listSavedSnippets(db, realmId, userId), () => `insert into saved_snippets (realm_id, user_id, title, content, date_created) values (${realmId}, ${userId}, 'Hi', 'Hello', 0)`],
      ["navigation_views", (db) => listNavigationViews(db, realmId, userId), () => `insert into navigation_views (realm_id, user_id, fragment, is_pinned, name) values (${realmId}, ${userId}, 'inbox', 1, null)`],
      ["push_devices", (db) => pushDevicesOf(db, realmId, userId), () => `insert into push_devices (realm_id, user_id, token_kind, push_account_id, push_public_key) values (${realmId}, ${userId}, 'fcm', 'a1', 'k1')`],
      [
        "scheduled_messages",
        (db) => listUndeliveredScheduledMessages(db, realmId, userId, DELIVERY_TYPE.sendLater),
        () =>
          `insert into scheduled_messages (realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, sending_client, scheduled_timestamp, read_by_sender, has_attachment) values (${realmId}, ${userId}, ${recipientId}, null, '', 'Later', '<p>Later</p>', 'test', 0, 1, 0)`,
      ],
    ];

    test("the register's realm-wide and per-user reads are cached and see another process's commit to their table", async () => {
      const inserted = await sql<{ id: number }>`insert into users (realm_id, delivery_email, full_name, role, api_key, date_joined) values (${realmId}, 'reader@x', 'Reader', 400, 'cache-reader', 0) returning id`.execute(store.db);
      const userId = inserted.rows[0].id;
      const recipient = await sql<{ id: number }>`insert into recipients (realm_id, type, type_id) values (${realmId}, 1, ${userId}) returning id`.execute(store.db);
      for (const [table, read, insert] of [...registerReads, ...userReads(userId, recipient.rows[0].id)]) {
        const before = JSON.stringify(await read(store.reader));
        // On PostgreSQL the insert is silent first (triggers off): the cache keeps serving what it read.
        if (kind === "postgres") {
          await elsewhere(["set session_replication_role = replica", insert(userId), "set session_replication_role = origin"]);
          assert.equal(JSON.stringify(await read(store.reader)), before, `${table}: served from the cache`);
          await elsewhere([`update ${table} set realm_id = realm_id where realm_id = ${realmId}`]);
        } else {
          await elsewhere([insert(userId)]);
        }
        assert.notEqual(JSON.stringify(await read(store.reader)), before, `${table}: the commit is seen`);
      }
    });
  });
}

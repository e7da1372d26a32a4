/**
 * The read cache (store/read-cache.ts) and the write counters behind it (store/table-versions.ts):
 * a cached read never returns what a later write changed, whether the write came through this
 * store (alone, in a group-commit batch, in a job that was rolled back) or from another
 * connection; callers get copies. On PostgreSQL every pooled connection reports its writes and
 * other processes' commits arrive as trigger notifications (store/pg-table-versions.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import path from "node:path";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import pg from "pg";
import { NOTIFYING_TABLES } from "../../src/store/migrations/0024-table-notify.ts";
import { PgTableVersions } from "../../src/store/pg-table-versions.ts";
import { CACHED_TABLES } from "../../src/store/read-cache.ts";
import { getRealm } from "../../src/store/realms.ts";
import { TableVersions } from "../../src/store/table-versions.ts";
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

test("every table a cached read depends on has PostgreSQL's commit trigger (migration 0024)", async () => {
  // Loading the store modules registers their cached reads.
  const fs = await import("node:fs");
  const dir = path.resolve(import.meta.dirname, "../../src/store");
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".ts"))) await import(path.join(dir, file));
  assert.ok(CACHED_TABLES.size > 5);
  const watched = new Set<string>(NOTIFYING_TABLES);
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
  });
}

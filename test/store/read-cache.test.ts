/**
 * The read cache (store/read-cache.ts) and the write counters behind it (store/table-versions.ts):
 * a cached read never returns what a later write changed, whether the write came through this
 * store (alone, in a group-commit batch, in a job that was rolled back) or from another
 * connection; callers get copies. On PostgreSQL there is no cache, and the same reads hold.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import path from "node:path";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
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

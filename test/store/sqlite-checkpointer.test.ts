/**
 * WAL checkpoints run in a worker thread (store/engine/sqlite-checkpointer.ts): with the writer's own
 * automatic checkpoint off, committed pages still reach the database file, and closing the store
 * stops the worker.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import { freshStore, type FreshStore } from "../helpers/stores.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SQLite checkpoints in a worker", () => {
  let fresh: FreshStore;
  let store: Store;
  before(async () => {
    fresh = await freshStore("sqlite");
    store = openStore({ databaseUrl: null, dataDir: fresh.dataDir });
    await migrate(store);
  });
  after(async () => {
    await fresh?.drop();
  });

  test("committed pages reach the database file without the writer checkpointing", async () => {
    const file = path.join(fresh.dataDir, "parley.db");
    const sizeBefore = fs.statSync(file).size;
    const description = "x".repeat(4000);
    await store.transact(async (tx) => {
      for (let i = 0; i < 1000; i++) {
        await tx.insertInto("realms").values({ string_id: `r${i}`, name: `r${i}`, description, date_created: 0, deactivated: 0, settings: "{}" }).execute();
      }
    });
    // About 4 MB went to the WAL; the writer alone would not copy it back below 1,000 pages.
    for (let waited = 0; waited < 5000 && fs.statSync(file).size < sizeBefore + 3_000_000; waited += 100) await sleep(100);
    assert.ok(fs.statSync(file).size >= sizeBefore + 3_000_000, `database file grew from ${sizeBefore} to ${fs.statSync(file).size} bytes`);
  });

  test("closing the store stops the worker and leaves a readable database", async () => {
    await store.close();
    const again = openStore({ databaseUrl: null, dataDir: fresh.dataDir });
    try {
      const row = await again.db.selectFrom("realms").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 1000);
    } finally {
      await again.close();
    }
  });
});

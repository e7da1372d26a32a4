/**
 * Group commit (store/commit/group-commit.ts) and the query-only reader, on a real SQLite file:
 * concurrent transactions share one commit, a failing one takes only its own writes with it,
 * no caller hears "done" before the commit, and the reader refuses writes. On PostgreSQL
 * (store/commit/pg-group-commit.ts) transactions that wait for a write lane share a commit too, without
 * savepoints: one that fails takes its batch with it, and the others, told BatchRolledBackError,
 * run again alone, as withTransaction does (`transact` below); with that, the same contract holds.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openStore, type Store } from "../../src/store/db.ts";
import { atBatchEnd } from "../../src/store/engine/batch-end.ts";
import { BatchRolledBackError } from "../../src/errors.ts";
import { sql, type Transaction } from "kysely";
import type { Database } from "../../src/store/schema/database.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES, type FreshStore } from "../helpers/stores.ts";

async function realmNames(store: Store): Promise<string[]> {
  const rows = await store.db.selectFrom("realms").select("string_id").orderBy("string_id").execute();
  return rows.map((r) => r.string_id);
}

function realmRow(stringId: string) {
  return { string_id: stringId, name: stringId, description: "", date_created: 0, deactivated: 0 as const, settings: "{}" };
}

/** store.transact as withTransaction uses it: a transaction a batch rolled back for another's failure runs again, alone. */
async function transact<T>(store: Store, fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await store.transact(fn);
  } catch (error) {
    if (!(error instanceof BatchRolledBackError)) throw error;
    return store.transact(fn, { alone: true });
  }
}

function insertRealm(store: Store, stringId: string, fail = false) {
  return transact(store, async (tx) => {
    await tx.insertInto("realms").values(realmRow(stringId)).execute();
    if (fail) throw new Error(`refused ${stringId}`);
    return stringId;
  });
}

for (const kind of STORES) {
  describe(`write transactions [${kind}]`, () => {
    let store: Store;
    let fresh: FreshStore;
    useMigratedStore(kind, { groupCommitMax: 8 }, (s) => {
      ({ store, fresh } = s);
    });

    test("concurrent transactions all commit; a failing one is undone alone and its caller gets its error", async () => {
      const names = Array.from({ length: 20 }, (_, i) => `r${String(i).padStart(2, "0")}`);
      const results = await Promise.allSettled(names.map((n, i) => insertRealm(store, n, i % 7 === 3)));
      const failed = names.filter((_, i) => i % 7 === 3);
      results.forEach((r, i) => {
        if (failed.includes(names[i])) {
          assert.equal(r.status, "rejected");
          assert.match(String((r as PromiseRejectedResult).reason), new RegExp(`refused ${names[i]}`));
        } else {
          assert.deepEqual(r, { status: "fulfilled", value: names[i] });
        }
      });
      assert.deepEqual(await realmNames(store), names.filter((n) => !failed.includes(n)));
    });

    test("a caller hears of its transaction only once it is visible to other connections", async () => {
      const other = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
      try {
        const seen = await Promise.all(["s1", "s2", "s3"].map(async (n) => {
          await insertRealm(store, n);
          const row = await other.db.selectFrom("realms").select("id").where("string_id", "=", n).executeTakeFirst();
          return row !== undefined;
        }));
        assert.deepEqual(seen, [true, true, true]);
      } finally {
        await other.close();
      }
    });

    test("an error of the statement itself (a unique key) fails only that transaction", async () => {
      const results = await Promise.allSettled([insertRealm(store, "u1"), insertRealm(store, "u1"), insertRealm(store, "u2")]);
      // On PostgreSQL the two "u1" transactions race on the pool: either may be the one refused.
      assert.deepEqual(results.slice(0, 2).map((r) => r.status).sort(), ["fulfilled", "rejected"]);
      assert.equal(results[2].status, "fulfilled");
      assert.equal((await realmNames(store)).filter((n) => n === "u1" || n === "u2").length, 2);
    });

    test("writes deferred to the batch's end are kept in call order, and only for the jobs that succeeded", async () => {
        const names = Array.from({ length: 10 }, (_, i) => `d${i}`);
        const results = await Promise.allSettled(names.map((n, i) => transact(store, async (tx) => {
          await atBatchEnd(tx, async () => void (await tx.insertInto("realms").values(realmRow(`${n}-late`)).execute()));
          // A later deferred write of the same job sees the earlier one (same order as called).
          await atBatchEnd(tx, async () => void (await tx.updateTable("realms").set({ name: `${n} renamed` }).where("string_id", "=", `${n}-late`).execute()));
          if (i % 4 === 1) throw new Error(`refused ${n}`);
          return n;
        })));
        assert.deepEqual(results.map((r) => r.status), names.map((_, i) => (i % 4 === 1 ? "rejected" : "fulfilled")));
        const rows = await store.db.selectFrom("realms").select(["string_id", "name"]).where("string_id", "like", "d%-late").orderBy("string_id").execute();
        assert.deepEqual(rows, names.filter((_, i) => i % 4 !== 1).map((n) => ({ string_id: `${n}-late`, name: `${n} renamed` })));
      });

    if (kind === "sqlite") {
      test("a deferred write that fails fails its whole batch, and nothing of the batch is kept", async () => {
        const results = await Promise.allSettled(["f1", "f2", "f3"].map((n) => store.transact(async (tx) => {
          await tx.insertInto("realms").values(realmRow(n)).execute();
          // Every job of the batch inserts the same row late: the second such insert breaks the unique key.
          await atBatchEnd(tx, async () => void (await tx.insertInto("realms").values(realmRow("f-late")).execute()));
          return n;
        })));
        assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected", "rejected"]);
        assert.deepEqual((await realmNames(store)).filter((n) => n.startsWith("f")), []);
      });

      test("transactions queued together share commits, at most groupCommitMax to one", async () => {
        // Each transaction asks the reader (another connection) whether the one queued just
        // before it is visible yet: only across a commit, so every eighth says yes.
        const names = Array.from({ length: 24 }, (_, i) => `c${String(i).padStart(2, "0")}`);
        const visible = await Promise.all(names.map((n, i) => store.transact(async (tx) => {
          await tx.insertInto("realms").values(realmRow(n)).execute();
          if (i === 0) return null;
          const row = await store.reader.selectFrom("realms").select("id").where("string_id", "=", names[i - 1]).executeTakeFirst();
          return row !== undefined;
        })));
        assert.deepEqual(visible, names.map((_, i) => (i === 0 ? null : i % 8 === 0)));
      });

      test("the reader connection refuses writes", async () => {
        await assert.rejects(
          store.reader.insertInto("realms").values(realmRow("nope")).execute(),
          /readonly|read-only|query_only/i,
        );
      });
    }
  });
}

if (STORES.includes("postgres")) describe("PostgreSQL group commit: one write lane", () => {
  let store: Store;
  useMigratedStore("postgres", { groupCommitMax: 5, pgWriteLanes: 1 }, (s) => {
    ({ store } = s);
  });
  const txid = (tx: Transaction<Database>) => sql<{ id: string }>`select txid_current()::text as id`.execute(tx).then((r) => r.rows[0].id);

  test("transactions that wait for the lane share one transaction, at most groupCommitMax to one; a lone one has its own", async () => {
    const ids = await Promise.all(Array.from({ length: 11 }, (_, i) => store.transact(async (tx) => {
      await tx.insertInto("realms").values(realmRow(`pg${i}`)).execute();
      return txid(tx);
    })));
    // The first runs alone while the others queue; they follow in batches of 5.
    assert.deepEqual(ids.map((id) => ids.indexOf(id)), [0, 1, 1, 1, 1, 1, 6, 6, 6, 6, 6]);
    const alone = await Promise.all([0, 1].map(() => store.transact((tx) => txid(tx), { alone: true })));
    assert.notEqual(alone[0], alone[1]);
  });

  test("one failure rolls its batch back: its caller gets its error, the others BatchRolledBackError, and nothing is kept", async () => {
    const results = await Promise.allSettled(["q0", "q1", "q2", "q3"].map((n) => store.transact(async (tx) => {
      await tx.insertInto("realms").values(realmRow(n)).execute();
      if (n === "q2") throw new Error("refused q2");
      return n;
    })));
    assert.deepEqual(results[0], { status: "fulfilled", value: "q0" }, "alone in the lane");
    assert.ok(results[1].status === "rejected" && results[1].reason instanceof BatchRolledBackError);
    assert.ok(results[2].status === "rejected" && /refused q2/.test(String(results[2].reason)));
    assert.ok(results[3].status === "rejected" && results[3].reason instanceof BatchRolledBackError);
    assert.deepEqual((await realmNames(store)).filter((n) => n.startsWith("q")), ["q0"]);
  });
});

if (STORES.includes("postgres")) describe("PostgreSQL group commit: a second lane opens only after the first has been busy PG_WRITE_LANE_WAIT_MS", () => {
  const WAIT_MS = 150;
  let store: Store;
  useMigratedStore("postgres", { groupCommitMax: 5, pgWriteLanes: 2, pgWriteLaneWaitMs: WAIT_MS }, (s) => {
    ({ store } = s);
  });
  const txid = (tx: Transaction<Database>) => sql<{ id: string }>`select txid_current()::text as id`.execute(tx).then((r) => r.rows[0].id);

  /** A transaction that holds its lane until released; `started` resolves once it runs. */
  function slowTransaction() {
    let release = () => {};
    let started = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const done = store.transact(async (tx) => {
      started();
      await held;
      return txid(tx);
    });
    return { running, release, done };
  }

  test("behind a slow transaction, the others wait up to the lane wait, then share a second lane's commit", async () => {
    const slow = slowTransaction();
    await slow.running;
    const queued = performance.now();
    const others = await Promise.all(Array.from({ length: 3 }, () => store.transact((tx) => txid(tx)))).finally(slow.release);
    const waited = performance.now() - queued;
    // Done while the slow one still held the first lane: a second lane opened, after the wait.
    assert.ok(waited >= WAIT_MS - 5, `the second lane opened after ${waited.toFixed(1)} ms`);
    assert.equal(new Set(others).size, 1, "the waiting transactions shared one commit");
    assert.notEqual(await slow.done, others[0]);
  });

  test("while the first lane is busy for less than the wait, the others wait for it rather than open a second", async () => {
    const slow = slowTransaction();
    await slow.running;
    let released = false;
    // Released well within the wait: the queued transactions must not have started before it.
    setTimeout(() => {
      released = true;
      slow.release();
    }, WAIT_MS / 5);
    const startedAfterRelease = await Promise.all(Array.from({ length: 3 }, () => store.transact(async (tx) => {
      const afterRelease = released;
      await txid(tx);
      return afterRelease;
    })));
    await slow.done;
    assert.deepEqual(startedAfterRelease, [true, true, true]);
  });
});

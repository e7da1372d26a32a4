/**
 * A write transaction opened while the same request has one open (actions/context.ts
 * TransactionGuard) fails at once with NestedTransactionError on both engines, where SQLite used
 * to hang for ever; the outer transaction still commits or rolls back as before, the request's
 * later transactions run, contexts derived with `{ ...ctx }` share the guard, and other requests'
 * concurrent transactions are not mistaken for nested ones (on SQLite they still share a commit).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TransactionGuard, withTransaction, type ActionCtx } from "../../src/actions/context.ts";
import { NestedTransactionError } from "../../src/errors.ts";
import { LocalBus } from "../../src/events/bus.ts";
import type { Store } from "../../src/store/db.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

// A hang fails the test (and the race below fails it with a clear message) instead of stalling the run.
const LIMIT_MS = 5000;
const bounded = { timeout: 2 * LIMIT_MS };

/** `promise`, or a rejection if it has not settled within LIMIT_MS. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${LIMIT_MS} ms`)), LIMIT_MS);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

function realmRow(stringId: string) {
  return { string_id: stringId, name: stringId, description: "", date_created: 0, deactivated: 0 as const, settings: "{}" };
}

async function realmExists(store: Store, stringId: string): Promise<boolean> {
  const row = await store.db.selectFrom("realms").select("id").where("string_id", "=", stringId).executeTakeFirst();
  return row !== undefined;
}

/** What withTransaction reads of one request's action context (http/app.ts builds the real one). */
function requestCtx(store: Store): ActionCtx {
  return { transact: store.transact, transactionGuard: new TransactionGuard(), bus: new LocalBus(), realm: { id: 1 } } as unknown as ActionCtx;
}

for (const kind of STORES) {
  describe(`nested write transactions [${kind}]`, () => {
    let store: Store;
    useMigratedStore(kind, { groupCommitMax: 8 }, (s) => {
      ({ store } = s);
    });

    test("a nested transaction fails at once, its function never runs, and the outer one still commits", bounded, async () => {
      const ctx = requestCtx(store);
      let innerRan = false;
      const caught = await within(withTransaction(ctx, async (tx) => {
        await tx.insertInto("realms").values(realmRow("n-outer")).execute();
        // Through a derived context, as an action running as another user would.
        const error = await withTransaction({ ...ctx }, async (inner) => {
          innerRan = true;
          await inner.insertInto("realms").values(realmRow("n-inner")).execute();
        }).then(() => null, (e: unknown) => e);
        // Still inside the outer transaction after the refusal: its writes go on.
        await tx.updateTable("realms").set({ name: "outer kept" }).where("string_id", "=", "n-outer").execute();
        return error;
      }), "the outer transaction");
      assert.ok(caught instanceof NestedTransactionError);
      assert.equal(caught.message, "a write transaction was opened inside another: pass the outer transaction down");
      assert.equal(innerRan, false);
      const row = await store.db.selectFrom("realms").select("name").where("string_id", "=", "n-outer").executeTakeFirst();
      assert.deepEqual(row, { name: "outer kept" });
      assert.equal(await realmExists(store, "n-inner"), false);
    });

    test("an outer transaction that lets the error through is rolled back; the request's next one runs", bounded, async () => {
      const ctx = requestCtx(store);
      await assert.rejects(
        within(withTransaction(ctx, async (tx) => {
          await tx.insertInto("realms").values(realmRow("r-outer")).execute();
          // Nested a few calls deep, after an await, as an action calling another action would.
          await Promise.resolve();
          await (async () => withTransaction(ctx, async () => undefined))();
        }), "the outer transaction"),
        NestedTransactionError,
      );
      assert.equal(await realmExists(store, "r-outer"), false);
      // Neither the store nor the request is stuck: the request's next transaction commits.
      await within(withTransaction(ctx, (tx) => tx.insertInto("realms").values(realmRow("r-next")).execute()), "the next transaction");
      assert.equal(await realmExists(store, "r-next"), true);
    });

    if (kind === "sqlite") {
      test("other requests' concurrent transactions beside a refused nested one still share one commit", bounded, async () => {
        // Each asks the reader (another connection) whether the one queued just before it is
        // visible yet: only across a commit, so in one batch of eight none is.
        const names = Array.from({ length: 8 }, (_, i) => `b${i}`);
        const results = await within(Promise.all(names.map((n, i) => {
          const ctx = requestCtx(store);
          return withTransaction(ctx, async (tx) => {
            await tx.insertInto("realms").values(realmRow(n)).execute();
            const nested = i === 3 ? await withTransaction(ctx, async () => undefined).then(() => "ran", (e: unknown) => e instanceof NestedTransactionError) : null;
            const previous = i === 0 ? null : await store.reader.selectFrom("realms").select("id").where("string_id", "=", names[i - 1]).executeTakeFirst();
            return { nested, previousVisible: previous === null ? null : previous !== undefined };
          });
        })), "the batch");
        assert.deepEqual(results, names.map((_, i) => ({ nested: i === 3 ? true : null, previousVisible: i === 0 ? null : false })));
        for (const n of names) assert.equal(await realmExists(store, n), true);
      });
    } else {
      test("other requests' transactions run side by side and are not taken for nested ones", bounded, async () => {
        // Both are open at once: each waits inside its transaction until the other has started.
        let arrived = 0;
        let bothOpen = (): void => undefined;
        const meeting = new Promise<void>((resolve) => (bothOpen = resolve));
        await within(Promise.all(["p1", "p2"].map((n) => withTransaction(requestCtx(store), async (tx) => {
          await tx.insertInto("realms").values(realmRow(n)).execute();
          if (++arrived === 2) bothOpen();
          await meeting;
        }))), "the two transactions");
        assert.deepEqual([await realmExists(store, "p1"), await realmExists(store, "p2")], [true, true]);
      });
    }
  });
}

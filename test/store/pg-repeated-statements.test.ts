/**
 * PostgreSQL: queries built anew on each call whose text repeats (a message page) run as named
 * statements from their second run (store/engine/pg-named-statements.ts executeRepeated), at most
 * PG_NAMED_PAGE_QUERIES texts a process. (GET /messages pages go through it on PostgreSQL: the API
 * suites read the same pages again and again, named from their second read.) PostgreSQL only: on
 * SQLite every statement is kept compiled by its text (sqlite-statements.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql, type Kysely } from "kysely";
import type { Store } from "../../src/store/db.ts";
import { executeRepeated } from "../../src/store/engine/pg-named-statements.ts";
import type { Database } from "../../src/store/schema/database.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

/** The named statements of the transaction's connection. */
async function statementNames(db: Kysely<Database>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** A query over the realm's users whose text is its own (`tag` is written into the SQL). */
function usersQuery(db: Kysely<Database>, realmId: number, tag: string) {
  return db.selectFrom("users").select("id").where("realm_id", "=", realmId).where(sql.lit(tag), "=", tag).orderBy("id");
}

if (STORES.includes("postgres")) {
  describe("repeated query texts as named statements [postgres]", () => {
    let store: Store;
    let fx: Fixtures;
    // Two texts at most: the third one stays unnamed.
    useMigratedStore("postgres", { fixtures: true, pgNamedPageQueries: 2 }, (s) => {
      ({ store, fixtures: fx } = s);
    });

    test("a text is named from its second run on, and answers the same", async () => {
      await store.db.transaction().execute(async (tx) => {
        const before = await statementNames(tx);
        const first = await executeRepeated(tx, usersQuery(tx, fx.realmId, "first"));
        assert.deepEqual(await statementNames(tx), before, "one run names nothing");
        const second = await executeRepeated(tx, usersQuery(tx, fx.realmId, "first"));
        const named = (await statementNames(tx)).filter((n) => !before.includes(n));
        assert.equal(named.length, 1);
        assert.match(named[0], /^parley_repeated_\d+$/);
        assert.deepEqual(second, first);
        assert.ok(first.length > 1, "the fixture realm has users");
        assert.deepEqual(await executeRepeated(tx, usersQuery(tx, fx.realmId, "first")), first, "the named statement runs again");
      });
    });

    test("at most PG_NAMED_PAGE_QUERIES texts are named; later ones run unnamed", async () => {
      await store.db.transaction().execute(async (tx) => {
        const before = await statementNames(tx);
        for (let i = 0; i < 3; i++) await executeRepeated(tx, usersQuery(tx, fx.realmId, "second"));
        const afterSecond = await statementNames(tx);
        assert.equal(afterSecond.length, before.length + 1, "the second text is named");
        const rows = [];
        for (let i = 0; i < 3; i++) rows.push(await executeRepeated(tx, usersQuery(tx, fx.realmId, "third")));
        assert.deepEqual(await statementNames(tx), afterSecond, "the third text is not");
        assert.deepEqual(rows[2], rows[0]);
      });
    });
  });
}

/**
 * MESSAGE_COLUMNS (store/schema/database.ts) is what reads of messages select instead of `*`: it must name
 * every column of the table but PostgreSQL's search vector, on each store.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { MESSAGE_COLUMNS } from "../../src/store/schema/database.ts";
import type { Store } from "../../src/store/db.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

for (const kind of STORES) {
  describe(`message columns [${kind}]`, () => {
    let store: Store;
    useMigratedStore(kind, {}, (s) => {
      store = s.store;
    });

    test("every column of messages is read, except the search vector", async () => {
      const columns =
        kind === "sqlite"
          ? (await sql<{ name: string }>`select name from pragma_table_info('messages')`.execute(store.db)).rows.map((r) => r.name)
          : (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'messages'`.execute(store.db)).rows.map((r) => r.name);
      assert.deepEqual(columns.filter((c) => c !== "search_tsv").sort(), [...MESSAGE_COLUMNS].sort());
    });
  });
}

/**
 * Migration 0029: channels made before every channel got its recipient row at creation get one,
 * and a channel that has one keeps it alone; then a channel send is checked with reads only.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Kysely, Migrator } from "kysely";
import type { Store } from "../../src/store/db.ts";
import { RECIPIENT_TYPE } from "../../src/store/schema/database.ts";
import { oldRealm, oldStream } from "../helpers/old-schema.ts";
import { useStoreMigratedTo } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

for (const kind of STORES) {
  describe(`migration 0029-stream-recipients [${kind}]`, () => {
    let store: Store;
    let migrator: Migrator;
    useStoreMigratedTo(kind, "0028-search-pending-list", (s) => ({ store, migrator } = s));

    test("each channel without a recipient row gets one; one that has it keeps it", async () => {
      // The schema as of 0028: typed loosely on purpose.
      const db = store.db as unknown as Kysely<any>;
      const realm = await oldRealm(db, "old");
      const without = await oldStream(db, realm, "never written to");
      const withOne = await oldStream(db, realm, "written to");
      const kept = await db.insertInto("recipients").values({ realm_id: realm.realmId, type: RECIPIENT_TYPE.stream, type_id: withOne }).returning("id").executeTakeFirstOrThrow();

      assert.equal((await migrator.migrateToLatest()).error, undefined);
      const rows = await db.selectFrom("recipients").select(["id", "realm_id", "type_id"]).where("type", "=", RECIPIENT_TYPE.stream).orderBy("type_id").execute();
      assert.deepEqual(rows.map((r) => [r.realm_id, r.type_id]), [[realm.realmId, without], [realm.realmId, withOne]]);
      assert.equal(rows[1].id, kept.id);
    });
  });
}

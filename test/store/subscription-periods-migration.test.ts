/**
 * Migration 0004: a store that gained subscriptions before subscription periods existed gets an
 * open period for each active one, so its subscribers receive new messages; runs on both stores.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Kysely, Migrator } from "kysely";
import type { Store } from "../../src/store/db.ts";
import { oldRealm, oldStream } from "../helpers/old-schema.ts";
import { useStoreMigratedTo } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

for (const kind of STORES) {
  describe(`migration 0004-subscription-periods [${kind}]`, () => {
    let store: Store;
    let migrator: Migrator;
    useStoreMigratedTo(kind, "0003-organization", (s) => ({ store, migrator } = s));

    test("active subscriptions without a period get one; others are left as they are", async () => {
      // The schema as of 0003, with its column defaults: typed loosely on purpose.
      const db = store.db as unknown as Kysely<any>;
      const realm = await oldRealm(db, "old");
      const user = (email: string) => ({ realm_id: realm.realmId, delivery_email: email, full_name: email, role: 400, api_key: email, date_joined: 0 });
      const users = await db.insertInto("users").values([user("a@x"), user("b@x"), user("c@x")]).returning("id").execute();
      const streamId = await oldStream(db, realm, "general");
      const sub = (userId: number, active: number) => ({ realm_id: realm.realmId, user_id: userId, stream_id: streamId, active, color: "#c2c2c2" });
      await db.insertInto("subscriptions").values([sub(users[0].id, 1), sub(users[1].id, 0), sub(users[2].id, 1)]).execute();
      // The third user already has an open period (made by current code): it must not get a second one.
      await db.insertInto("subscription_periods").values({ realm_id: realm.realmId, user_id: users[2].id, stream_id: streamId, first_message_id: 1, last_message_id: null }).execute();

      const rest = await migrator.migrateToLatest();
      assert.equal(rest.error, undefined);
      const periods = await db.selectFrom("subscription_periods").select(["user_id", "first_message_id", "last_message_id"]).orderBy("user_id").execute();
      assert.deepEqual(periods, [
        { user_id: users[0].id, first_message_id: 1, last_message_id: null },
        { user_id: users[2].id, first_message_id: 1, last_message_id: null },
      ]);
    });
  });
}

/**
 * Migration 0004: a store that gained subscriptions before subscription periods existed gets an
 * open period for each active one, so its subscribers receive new messages; runs on both stores.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Migrator, type Kysely } from "kysely";
import { migrations } from "../../src/store/migrations/index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { freshStore, STORES, type FreshStore } from "../helpers/stores.ts";

/** The channel permission columns as of 0003 (not null, no default). */
const STREAM_GROUP_COLUMNS = [
  "can_administer_channel_group_id", "can_send_message_group_id", "can_add_subscribers_group_id", "can_remove_subscribers_group_id",
  "can_subscribe_group_id", "can_delete_any_message_group_id", "can_delete_own_message_group_id",
  "can_move_messages_out_of_channel_group_id", "can_move_messages_within_channel_group_id", "can_resolve_topics_group_id",
];

for (const kind of STORES) {
  describe(`migration 0004-subscription-periods [${kind}]`, () => {
    let fresh: FreshStore;
    let store: Store;
    before(async () => {
      fresh = await freshStore(kind);
      store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
    });
    after(async () => {
      await store?.close();
      await fresh?.drop();
    });

    test("active subscriptions without a period get one; others are left as they are", async () => {
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations(store.engine) } });
      const first = await migrator.migrateTo("0003-organization");
      assert.equal(first.error, undefined);
      // The schema as of 0003, with its column defaults: typed loosely on purpose.
      const db = store.db as unknown as Kysely<any>;
      const realm = await db.insertInto("realms").values({ string_id: "old", name: "Old", date_created: 0 }).returning("id").executeTakeFirstOrThrow();
      const user = (email: string) => ({ realm_id: realm.id, delivery_email: email, full_name: email, role: 400, api_key: email, date_joined: 0 });
      const users = await db.insertInto("users").values([user("a@x"), user("b@x"), user("c@x")]).returning("id").execute();
      const group = await db.insertInto("user_groups").values({ realm_id: realm.id, name: "role:everyone", is_system_group: 1 }).returning("id").executeTakeFirstOrThrow();
      const groupSettings = Object.fromEntries(STREAM_GROUP_COLUMNS.map((c) => [c, group.id]));
      const stream = await db.insertInto("streams").values({ realm_id: realm.id, name: "general", date_created: 0, ...groupSettings }).returning("id").executeTakeFirstOrThrow();
      const sub = (userId: number, active: number) => ({ realm_id: realm.id, user_id: userId, stream_id: stream.id, active, color: "#c2c2c2" });
      await db.insertInto("subscriptions").values([sub(users[0].id, 1), sub(users[1].id, 0), sub(users[2].id, 1)]).execute();
      // The third user already has an open period (made by current code): it must not get a second one.
      await db.insertInto("subscription_periods").values({ realm_id: realm.id, user_id: users[2].id, stream_id: stream.id, first_message_id: 1, last_message_id: null }).execute();

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

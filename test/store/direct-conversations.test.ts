/**
 * The key of a direct conversation (store/messages/messages.ts): the members' sorted ids, or past 1,000
 * characters a hash of them, since PostgreSQL refuses index entries past 2,704 bytes (a group
 * conversation of ~400 users used to answer 500 there). A long key stored whole by an earlier
 * version (SQLite could) is still found.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Store } from "../../src/store/db.ts";
import { directConversation, findDirectConversation } from "../../src/store/messages/messages.ts";
import { RECIPIENT_TYPE } from "../../src/store/schema/database.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { useMigratedStore } from "../helpers/migrated-store.ts";
import { STORES } from "../helpers/stores.ts";

for (const kind of STORES) {
  describe(`direct conversation keys [${kind}]`, () => {
    let fixtures: Fixtures;
    let store: Store;
    useMigratedStore(kind, { fixtures: true }, (s) => {
      ({ store, fixtures } = s);
    });

    test("a short member list is its own key; a long one is hashed, and found again in any order", async () => {
      const realm = fixtures.realmId;
      const few = [fixtures.member.id, fixtures.owner.id];
      const made = await directConversation(store.db, realm, few);
      const key = (groupId: number) => store.db.selectFrom("direct_groups").select("member_key").where("id", "=", groupId).executeTakeFirstOrThrow();
      assert.equal((await key(made.groupId)).member_key, [...few].sort((a, b) => a - b).join(","));
      assert.deepEqual(await findDirectConversation(store.db, realm, [...few].reverse()), made);

      const users = await store.db
        .insertInto("users")
        .values(
          Array.from({ length: 400 }, (_, i) => ({
            realm_id: realm, delivery_email: `many${i}@example.com`, email_address_visibility: 1, full_name: `Many ${i}`, role: 400, is_active: 1 as const,
            is_bot: 0 as const, bot_type: null, bot_owner_id: null, api_key: `many-key-${i}`, password_hash: null, date_joined: 0, timezone: "",
            avatar_source: "G", avatar_version: 1, is_billing_admin: 0 as const, settings: "{}",
          })),
        )
        .returning("id")
        .execute();
      const many = users.map((u) => u.id);
      const big = await directConversation(store.db, realm, many);
      assert.match((await key(big.groupId)).member_key, /^sha256:[0-9a-f]{64}$/);
      assert.deepEqual(big.memberIds, [...many].sort((a, b) => a - b));
      assert.deepEqual(await directConversation(store.db, realm, [...many].reverse()), big);
      const members = await store.db.selectFrom("direct_group_members").select("user_id").where("group_id", "=", big.groupId).execute();
      assert.equal(members.length, many.length);
    });

    // Only SQLite ever stored a long key whole (PostgreSQL's index refused them), so only it has such rows.
    const onlySqlite = kind === "sqlite" ? test : () => undefined;
    onlySqlite("a long key stored whole before keys were hashed is still found", async () => {
      const realm = fixtures.realmId;
      const ids = Array.from({ length: 300 }, (_, i) => 100_000 + i);
      const group = await store.db.insertInto("direct_groups").values({ realm_id: realm, member_key: ids.join(",") }).returning("id").executeTakeFirstOrThrow();
      const recipient = await store.db.insertInto("recipients").values({ realm_id: realm, type: RECIPIENT_TYPE.direct, type_id: group.id }).returning("id").executeTakeFirstOrThrow();
      assert.deepEqual(await findDirectConversation(store.db, realm, ids), { groupId: group.id, recipientId: recipient.id, memberIds: ids });
    });
  });
}

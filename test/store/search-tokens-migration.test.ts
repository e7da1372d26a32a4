/**
 * Migration 0005: messages indexed the old way (FTS5 unicode61 text; PostgreSQL's 'simple' parser)
 * are re-indexed with the shared search tokens, so both stores then match alike: accents folded,
 * no phrase across topic and content. Runs on both stores.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Migrator, sql, type Kysely } from "kysely";
import { migrations } from "../../src/store/migrations/index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { restrictToSearch } from "../../src/store/messages/search-query.ts";
import { parseSearch } from "../../src/model/search-words.ts";
import { freshStore, STORES, type FreshStore } from "../helpers/stores.ts";

/** The channel permission columns as of 0003 (not null, no default). */
const STREAM_GROUP_COLUMNS = [
  "can_administer_channel_group_id", "can_send_message_group_id", "can_add_subscribers_group_id", "can_remove_subscribers_group_id",
  "can_subscribe_group_id", "can_delete_any_message_group_id", "can_delete_own_message_group_id",
  "can_move_messages_out_of_channel_group_id", "can_move_messages_within_channel_group_id", "can_resolve_topics_group_id",
];

const MESSAGES = [
  { topic: "alpha beta", html: "<p>gamma Café</p>" },
  { topic: "misc", html: "<p>ＦＵＬＬ width and naïve &amp; plain</p>" },
  { topic: "misc", html: "<p>beta gamma</p>" },
];

for (const kind of STORES) {
  describe(`migration 0005-search-tokens [${kind}]`, () => {
    let fresh: FreshStore;
    let store: Store;
    const ids: number[] = [];
    before(async () => {
      fresh = await freshStore(kind);
      store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations(store.engine) } });
      const names = Object.keys(migrations(store.engine));
      assert.equal((await migrator.migrateTo(names[names.indexOf("0005-search-tokens") - 1])).error, undefined);
      // The schema before 0005: typed loosely on purpose.
      const db = store.db as unknown as Kysely<any>;
      const realm = await db.insertInto("realms").values({ string_id: "old", name: "Old", date_created: 0 }).returning("id").executeTakeFirstOrThrow();
      const user = await db.insertInto("users").values({ realm_id: realm.id, delivery_email: "a@x", full_name: "A", role: 400, api_key: "a", date_joined: 0 }).returning("id").executeTakeFirstOrThrow();
      const group = await db.insertInto("user_groups").values({ realm_id: realm.id, name: "role:everyone", is_system_group: 1 }).returning("id").executeTakeFirstOrThrow();
      const groupSettings = Object.fromEntries(STREAM_GROUP_COLUMNS.map((c) => [c, group.id]));
      const stream = await db.insertInto("streams").values({ realm_id: realm.id, name: "general", date_created: 0, ...groupSettings }).returning("id").executeTakeFirstOrThrow();
      const recipient = await db.insertInto("recipients").values({ realm_id: realm.id, type: 2, type_id: stream.id }).returning("id").executeTakeFirstOrThrow();
      for (const m of MESSAGES) {
        const row = { realm_id: realm.id, sender_id: user.id, recipient_id: recipient.id, stream_id: stream.id, topic: m.topic, content: m.html, rendered_content: m.html, date_sent: 0, sending_client: "test" };
        const { id } = await db.insertInto("messages").values(row).returning("id").executeTakeFirstOrThrow();
        ids.push(id);
        // Indexed as the code before 0005 did.
        const text = m.html.replace(/<[^>]*>/g, " ").replace("&amp;", "&").trim();
        if (kind === "sqlite") await sql`insert into message_search (rowid, topic, content) values (${id}, ${m.topic}, ${text})`.execute(db);
        else await sql`update messages set search_tsv = to_tsvector('simple', ${m.topic} || ' ' || ${text}) where id = ${id}`.execute(db);
      }
      assert.equal((await migrator.migrateToLatest()).error, undefined);
    });
    after(async () => {
      await store?.close();
      await fresh?.drop();
    });

    async function search(query: string): Promise<number[]> {
      const { query: q, id } = restrictToSearch(store.engine, parseSearch([query]).terms, store.db.selectFrom("messages").select("messages.id"));
      return (await q.orderBy(id, "asc").execute()).map((r) => r.id);
    }

    test("every existing message is re-indexed with the shared tokens", async () => {
      assert.deepEqual(await search("cafe"), [ids[0]]);
      assert.deepEqual(await search("CAFÉ"), [ids[0]]);
      assert.deepEqual(await search("full naive"), [ids[1]]);
      assert.deepEqual(await search("gamma"), [ids[0], ids[2]]);
      assert.deepEqual(await search('"alpha beta"'), [ids[0]]);
      assert.deepEqual(await search("amp"), []);
    });

    test("a phrase never spans the topic and the content", async () => {
      assert.deepEqual(await search('"beta gamma"'), [ids[2]]);
    });
  });
}

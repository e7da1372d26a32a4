/**
 * Migration 0028 (PostgreSQL): the full-text index keeps a pending list of 256 kB. Messages found
 * while their tokens wait in the list are found as well once a later insert has merged the full
 * list into the index.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import { restrictToSearch } from "../../src/store/messages/search-query.ts";
import { RECIPIENT_TYPE } from "../../src/store/schema/database.ts";
import { parseSearch } from "../../src/model/search-words.ts";
import { createFixtures } from "../helpers/fixtures.ts";
import { freshStore, STORES, type FreshStore } from "../helpers/stores.ts";

/** More messages than a 256 kB pending list holds: each carries two tokens of its own. */
const MESSAGES = 20_000;

if (STORES.includes("postgres")) {
  describe("migration 0028-search-pending-list [postgres]", () => {
    let fresh: FreshStore;
    let store: Store;
    let sender: { realmId: number; userId: number; recipientId: number };
    before(async () => {
      fresh = await freshStore("postgres");
      const fx = await createFixtures(fresh);
      store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
      await migrate(store);
      // A recipient row of its own: the search index does not look at the recipient.
      const recipient = await store.db.insertInto("recipients").values({ realm_id: fx.realmId, type: RECIPIENT_TYPE.direct, type_id: fx.owner.id }).returning("id").executeTakeFirstOrThrow();
      sender = { realmId: fx.realmId, userId: fx.owner.id, recipientId: recipient.id };
    });
    after(async () => {
      await store?.close();
      await fresh?.drop();
    });

    /** Merges the pending list into the index; answers how many pages it held. */
    const mergePending = async () => Number((await sql<{ pages: number }>`select gin_clean_pending_list('messages_search') as pages`.execute(store.db)).rows[0].pages);

    async function search(query: string): Promise<number> {
      const { query: q } = restrictToSearch(store.engine, parseSearch([query]).terms, store.db.selectFrom("messages").select("messages.id"));
      return (await q.execute()).length;
    }

    /** Inserts messages `from`..`to`, each with the token "pending" and two of its own. */
    async function insert(from: number, to: number): Promise<void> {
      await sql`
        insert into messages (realm_id, sender_id, recipient_id, topic, content, rendered_content, date_sent, sending_client, search_tsv)
        select ${sender.realmId}::integer, ${sender.userId}::integer, ${sender.recipientId}::integer, '', 'x', '<p>x</p>', 0, 'test', ('pending word' || g || ' other' || g)::tsvector
        from generate_series(${from}::integer, ${to}::integer) g`.execute(store.db);
    }

    test("the index keeps a 256 kB pending list", async () => {
      const row = await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = 'messages_search'`.execute(store.db);
      assert.deepEqual([...row.rows[0].options].sort(), ["fastupdate=on", "gin_pending_list_limit=256"]);
    });

    test("messages are found while their tokens wait in the list, and after it was merged", async () => {
      await insert(1, 10);
      assert.equal(await search("word3"), 1);
      assert.equal(await search("pending"), 10);
      await insert(11, MESSAGES);
      // Their entries took megabytes: sends merged the list whenever it passed 256 kB (32 pages).
      const pending = await mergePending();
      assert.ok(pending > 0 && pending <= 40, `pending pages: ${pending}`);
      await insert(MESSAGES + 1, MESSAGES + 5);
      assert.equal(await search("word3"), 1);
      assert.equal(await search("other19999"), 1);
      assert.equal(await search("pending"), MESSAGES + 5);
    });
  });
}

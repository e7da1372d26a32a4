/**
 * Bulk-loads channel messages straight into the store, in batches inside transactions, with
 * their full-text index rows, so a 200,000-message store takes seconds rather than an hour of
 * POST /messages. Rows are what the send path writes for a plain-text message with no mentions:
 * the message row (rendered as one paragraph) and its index entry; no flag rows (recipients'
 * default flags need none) and no per-recipient rows (there are none in this model).
 */
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { indexMessages } from "../src/store/messages/search-index.ts";
import { streamRecipientId } from "../src/store/messages/messages.ts";
import type { NewMessage } from "../src/store/schema/database.ts";
import type { FreshStore } from "../test/helpers/stores.ts";
import { prng, sentence, topicName } from "./text.ts";

/** A plain-text channel message row as the send path writes it (one paragraph, no mentions, links or files). */
export function plainMessageRow(m: { realmId: number; senderId: number; recipientId: number; streamId: number; topic: string; content: string; dateSent: number }): NewMessage {
  return {
    realm_id: m.realmId,
    sender_id: m.senderId,
    recipient_id: m.recipientId,
    stream_id: m.streamId,
    topic: m.topic,
    content: m.content,
    rendered_content: `<p>${escapeHtml(m.content)}</p>`,
    date_sent: m.dateSent,
    sending_client: "bench",
    is_me_message: 0,
    has_link: 0,
    has_image: 0,
    has_attachment: 0,
    stream_wildcard_mention: 0,
  };
}

/** What to load: `count` messages from `senderIds` (round-robin) into one channel. */
export type SeedOptions = { realmId: number; streamId: number; senderIds: number[]; count: number; seed: number };

/** How many messages matched each query's words (all words of the query in topic or content). */
export type SeedResult = { seconds: number; matches: Map<string, number> };

// 1,000 rows x 15 columns stays under SQLite's 32,766 bound parameters per statement.
const ROWS_PER_STATEMENT = 1_000;
const ROWS_PER_TRANSACTION = 10_000;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function countMatches(queries: string[], topic: string, content: string, matches: Map<string, number>): void {
  const words = new Set(`${topic} ${content}`.toLowerCase().match(/[a-z]+/g) ?? []);
  for (const query of queries) {
    if (query.split(" ").every((w) => words.has(w))) matches.set(query, (matches.get(query) ?? 0) + 1);
  }
}

/** Loads the messages into a store that the server is not running on; counts hits for `queries`. */
export async function seedMessages(fresh: FreshStore, opts: SeedOptions, queries: string[]): Promise<SeedResult> {
  const started = performance.now();
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  const random = prng(opts.seed);
  const matches = new Map<string, number>(queries.map((q) => [q, 0]));
  const topics = Array.from({ length: 60 }, () => topicName(random));
  // Spread over the last 30 days, oldest first, like a real history.
  const firstSecond = Math.floor(Date.now() / 1000) - 30 * 86_400;
  const step = (30 * 86_400) / opts.count;
  try {
    const recipientId = await store.db.transaction().execute((tx) => streamRecipientId(tx, opts.realmId, opts.streamId));
    for (let done = 0; done < opts.count; ) {
      const batchEnd = Math.min(opts.count, done + ROWS_PER_TRANSACTION);
      await store.db.transaction().execute(async (tx) => {
        for (let start = done; start < batchEnd; start += ROWS_PER_STATEMENT) {
          const rows: NewMessage[] = [];
          for (let i = start; i < Math.min(batchEnd, start + ROWS_PER_STATEMENT); i++) {
            const content = sentence(random);
            const topic = topics[Math.floor(random() * topics.length)];
            countMatches(queries, topic, content, matches);
            rows.push(plainMessageRow({ realmId: opts.realmId, senderId: opts.senderIds[i % opts.senderIds.length], recipientId, streamId: opts.streamId, topic, content, dateSent: Math.floor(firstSecond + i * step) }));
          }
          // Ids are assigned in row order; sorting makes the pairing independent of RETURNING's order.
          const ids = (await tx.insertInto("messages").values(rows).returning("id").execute()).map((r) => r.id).sort((a, b) => a - b);
          await indexMessages(tx, store.engine, ids.map((id, k) => ({ id, topic: rows[k].topic ?? "", renderedContent: rows[k].rendered_content })));
        }
      });
      done = batchEnd;
    }
    await sql`update streams set first_message_id = (select min(id) from messages where stream_id = ${opts.streamId}) where id = ${opts.streamId} and first_message_id is null`.execute(store.db);
    // Each row was written twice (insert, then its index entry, as the send path does): vacuum
    // now, as autovacuum would have done bit by bit, rather than once in the middle of a measurement.
    if (store.engine === "postgres") await sql`vacuum analyze`.execute(store.db);
  } finally {
    await store.close();
  }
  return { seconds: (performance.now() - started) / 1000, matches };
}

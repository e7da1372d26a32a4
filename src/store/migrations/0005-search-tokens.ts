/**
 * Rebuilds the full-text index with the tokens of model/search-words.ts on both engines (see
 * store/messages/search-index.ts): SQLite's FTS5 table becomes contentless with the `ascii`
 * tokenizer over pre-cut tokens; PostgreSQL's tsvector is written literally rather than by the
 * 'simple' parser, and its GIN index loses the pending list (fastupdate), which every search
 * would otherwise scan in full.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { indexMessages } from "../messages/search-index.ts";

/** Messages read and re-indexed per round: bounded memory on any history. */
const MESSAGES_PER_ROUND = 5_000;

async function reindexAll(db: Kysely<unknown>, engine: Engine): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; topic: string; renderedContent: string }>`select id, topic, rendered_content as "renderedContent"
      from messages where id > ${after} order by id limit ${MESSAGES_PER_ROUND}`.execute(db);
    if (rows.length === 0) return;
    await indexMessages(db, engine, rows);
    after = rows[rows.length - 1].id;
  }
}

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === "sqlite") {
    await sql`drop table message_search`.execute(db);
    await sql`create virtual table message_search using fts5(topic, content, tokenize = 'ascii', content = '', contentless_delete = 1)`.execute(db);
    await reindexAll(db, engine);
    return;
  }
  await sql`drop index messages_search`.execute(db);
  await reindexAll(db, engine);
  await sql`create index messages_search on messages using gin (search_tsv) with (fastupdate = off)`.execute(db);
}

/** Search tokens shared by both engines; the index rebuilt for every existing message. */
export function searchTokensMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

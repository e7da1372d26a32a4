/**
 * The full-text index of messages: the search tokens (model/search-words.ts) of the topic and of
 * the plain text of the rendered content, computed here so that both engines hold the same tokens.
 * SQLite: the contentless FTS5 table `message_search` (rowid = message id; columns topic and
 * content, each the tokens joined by spaces; the `ascii` tokenizer cuts exactly there, as a
 * token holds no ASCII separator and is already lower-cased). PostgreSQL: `messages.search_tsv`,
 * a tsvector written literally (no text-search parser involved), the content's positions after
 * a one-position gap so that, as with FTS5's columns, no phrase spans topic and content.
 * On SQLite every index write waits for the end of its group-commit batch (group-commit.ts).
 */
import { sql, type QueryExecutorProvider } from "kysely";
import type { Db, Engine } from "../schema/types.ts";
import { atBatchEnd } from "../engine/batch-end.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { searchTokens } from "../../model/search-words.ts";
import { eachChunk, idChunks, idListSql } from "../engine/chunks.ts";
import { pushTo } from "../../collections.ts";

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", nbsp: " " };

/** Rows per statement: 1,000 x 3 parameters is far below SQLite's and PostgreSQL's bounds. */
const ROWS_PER_STATEMENT = 1_000;

/** The words of rendered HTML: tags dropped (block boundaries become spaces), entities decoded. */
function searchText(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
      const known = ENTITIES[name.toLowerCase()];
      if (known !== undefined) return known;
      if (name.startsWith("#")) {
        const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
      }
      return whole;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** What the index holds for one message. */
type IndexedMessage = { id: number; topic: string; renderedContent: string };

/** A tsvector literal: each token with its positions (1-based; PostgreSQL caps them at 16383). */
function tsvectorLiteral(topic: readonly string[], content: readonly string[]): string {
  const positions = new Map<string, number[]>();
  topic.forEach((token, i) => pushTo(positions, token, i + 1));
  content.forEach((token, i) => pushTo(positions, token, topic.length + 2 + i));
  // Tokens hold only letters and digits: no quote or backslash to escape.
  return [...positions].map(([token, list]) => `'${token}':${list.join(",")}`).join(" ");
}

/** A message's index entry: its topic's and its text's search tokens. */
function indexEntry(m: IndexedMessage): { id: number; topic: string[]; content: string[] } {
  return { id: m.id, topic: searchTokens(m.topic), content: searchTokens(searchText(m.renderedContent)) };
}

async function indexBatch(db: QueryExecutorProvider, engine: Engine, messages: readonly IndexedMessage[], replace: boolean): Promise<void> {
  const entries = messages.map(indexEntry);
  if (engine === "sqlite") {
    const rows = entries.map((e) => sql`(${e.id}, ${e.topic.join(" ")}, ${e.content.join(" ")})`);
    return atBatchEnd(db, async () => {
      if (replace) await sql`delete from message_search where rowid in (${idListSql(entries.map((e) => e.id))})`.execute(db);
      await sql`insert into message_search (rowid, topic, content) values ${sql.join(rows)}`.execute(db);
    });
  }
  const rows = entries.map((e) => sql`(${e.id}::integer, ${tsvectorLiteral(e.topic, e.content)}::tsvector)`);
  await sql`update messages as m set search_tsv = v.tsv from (values ${sql.join(rows)}) as v(id, tsv) where m.id = v.id`.execute(db);
}

/** Indexes (or re-indexes) messages' topics and rendered contents (`db` may be a migration's). */
export async function indexMessages(db: QueryExecutorProvider, engine: Engine, messages: readonly IndexedMessage[]): Promise<void> {
  for (let start = 0; start < messages.length; start += ROWS_PER_STATEMENT) {
    await indexBatch(db, engine, messages.slice(start, start + ROWS_PER_STATEMENT), true);
  }
}

/** Indexes (or re-indexes) one message's topic and rendered content. */
export function indexMessage(db: Db, engine: Engine, message: IndexedMessage): Promise<void> {
  return indexMessages(db, engine, [message]);
}

/** PostgreSQL: the `search_tsv` literal of a message about to be inserted (store/messages/messages.ts insertMessage). */
export function searchVectorOf(message: Omit<IndexedMessage, "id">): string {
  const entry = indexEntry({ id: 0, ...message });
  return tsvectorLiteral(entry.topic, entry.content);
}

const indexOneQuery = prepared(
  "indexOne",
  (_db, param: Placeholders<{ id: number; topic: string; content: string }>) =>
    sql`insert into message_search (rowid, topic, content) values (${param("id")}, ${param("topic")}, ${param("content")})`,
);

/**
 * SQLite: indexes a message just inserted (nothing of it can be in the index yet), at the end of
 * its group-commit batch. PostgreSQL's insert carried its vector already (searchVectorOf).
 */
export async function indexNewMessage(db: Db, engine: Engine, message: IndexedMessage): Promise<void> {
  if (engine !== "sqlite") return;
  const entry = indexEntry(message);
  const params = { id: entry.id, topic: entry.topic.join(" "), content: entry.content.join(" ") };
  await atBatchEnd(db, async () => void (await indexOneQuery(db, params)));
}

/** Removes messages from the index (PostgreSQL's column goes with the row itself). */
export async function unindexMessages(db: Db, engine: Engine, messageIds: number[]): Promise<void> {
  if (engine !== "sqlite" || messageIds.length === 0) return;
  const chunks = idChunks(messageIds);
  await atBatchEnd(db, () => eachChunk(chunks, (chunk) => sql`delete from message_search where rowid in (${idListSql(chunk)})`.execute(db)));
}

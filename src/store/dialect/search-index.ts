/**
 * The full-text index of messages. SQLite: the `message_search` FTS5 table (rowid = message id;
 * columns topic and content, unicode61 tokenizer). PostgreSQL: `messages.search_tsv`, built with
 * the 'simple' configuration (lower-cased words, no stemming and no stop words), so both engines
 * match the same words; searches must use `to_tsquery('simple', ...)` / `plainto_tsquery('simple', ...)`.
 * The indexed text is the topic plus the plain text of the rendered content.
 */
import { sql } from "kysely";
import type { Db, Engine } from "../db.ts";

/** The PostgreSQL text-search configuration used for indexing and querying. */
export const SEARCH_CONFIG = "simple";

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", nbsp: " " };

/** The words of rendered HTML: tags dropped (block boundaries become spaces), entities decoded. */
export function searchText(html: string): string {
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

/** Indexes (or re-indexes) one message's topic and rendered content. */
export async function indexMessage(db: Db, engine: Engine, message: { id: number; topic: string; renderedContent: string }): Promise<void> {
  const text = searchText(message.renderedContent);
  if (engine === "sqlite") {
    await sql`delete from message_search where rowid = ${message.id}`.execute(db);
    await sql`insert into message_search (rowid, topic, content) values (${message.id}, ${message.topic}, ${text})`.execute(db);
    return;
  }
  await sql`update messages set search_tsv = to_tsvector(${SEARCH_CONFIG}::regconfig, ${message.topic} || ' ' || ${text}) where id = ${message.id}`.execute(db);
}

/** Removes messages from the index (PostgreSQL's column goes with the row itself). */
export async function unindexMessages(db: Db, engine: Engine, messageIds: number[]): Promise<void> {
  if (engine !== "sqlite" || messageIds.length === 0) return;
  await sql`delete from message_search where rowid in (${sql.join(messageIds)})`.execute(db);
}

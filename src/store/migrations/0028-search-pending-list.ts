/**
 * PostgreSQL only: the full-text index takes new messages through a small pending list again.
 * Migration 0005 turned the pending list off, since every search scans all of it and its default
 * size is 4 MB. Without it, each send inserts every token of the message into its place in the
 * index, decoding and recompressing a posting list per token: about 70 µs of PostgreSQL's CPU,
 * a third of the send's. With a pending list of 256 kB (a few hundred messages' tokens), a send
 * appends to the list, and when it is full the send that fills it merges it into the index, all
 * of one token's new entries at once. In `npm run bench` on one machine this raised PostgreSQL's
 * channel sends from 2,225/s to 2,769/s, and searches over 200,000 messages did not slow down
 * (722/s against 634/s). VACUUM merges the list too, as does autovacuum where it runs.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";

/** The pending list's size in kB (PostgreSQL's gin_pending_list_limit for this index). */
const SEARCH_PENDING_LIST_KB = 256;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== "postgres") return;
  await sql`alter index messages_search set (fastupdate = on, gin_pending_list_limit = ${sql.lit(SEARCH_PENDING_LIST_KB)})`.execute(db);
}

/** Migration 0028: a small pending list for the PostgreSQL full-text index. */
export function searchPendingListMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

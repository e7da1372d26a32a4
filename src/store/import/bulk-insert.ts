/**
 * Bulk writes of an import: rows written as given, ids included (an import keeps the source's
 * ids), in multi-row inserts of bounded size (engine/chunks.ts), and the id sequences moved past
 * the written ids afterwards so the server's own inserts continue above them.
 */
import { sql, type Insertable } from "kysely";
import type { Db, Engine } from "../schema/types.ts";
import type { Database } from "../schema/database.ts";
import { collectChunks, eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";

/** A table of the database. */
export type TableName = keyof Database & string;

/** Inserts rows into a table, ids and all, one bounded multi-row insert at a time. */
export async function insertRows<T extends TableName>(db: Db, table: T, rows: ReadonlyArray<Insertable<Database[T]>>): Promise<void> {
  await eachChunk(rowChunks(rows), (chunk) => db.insertInto(table).values(chunk as never).execute());
}

/** Flag rows a PostgreSQL statement takes at once, as three arrays. */
const FLAG_ROWS_PER_STATEMENT = 50_000;

/**
 * Each user's flags on each message, the bulk of an import's rows. On PostgreSQL they go as three
 * arrays unnested by one statement (three parameters, one prepared plan) rather than as multi-row
 * VALUES lists of three parameters a row, which PostgreSQL must parse and plan anew each time.
 */
export async function insertFlagRows(db: Db, engine: Engine, rows: ReadonlyArray<Insertable<Database["user_message_flags"]>>): Promise<void> {
  if (engine !== "postgres") return insertRows(db, "user_message_flags", rows);
  for (let start = 0; start < rows.length; start += FLAG_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + FLAG_ROWS_PER_STATEMENT);
    await sql`insert into user_message_flags (user_id, message_id, flags)
      select * from unnest(${chunk.map((r) => r.user_id)}::integer[], ${chunk.map((r) => r.message_id)}::integer[], ${chunk.map((r) => r.flags)}::integer[])`.execute(db);
  }
}

/**
 * PostgreSQL: moves each table's id sequence past its largest id (rows written with explicit ids
 * leave a serial's sequence behind). SQLite's AUTOINCREMENT follows explicit ids by itself.
 */
export async function resetIdSequences(db: Db, engine: Engine, tables: readonly TableName[]): Promise<void> {
  if (engine !== "postgres") return;
  for (const table of tables) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
  }
}

/** The name of an organization already in the store, or null when the store holds none (and no user). */
export async function existingOrganization(db: Db): Promise<string | null> {
  const realm = await db.selectFrom("realms").select("name").orderBy("id").limit(1).executeTakeFirst();
  if (realm) return realm.name;
  const user = await db.selectFrom("users").select("id").limit(1).executeTakeFirst();
  return user ? "(users without an organization)" : null;
}

/** Which of the given message ids the store holds (an import checks references to messages it wrote). */
export async function existingMessageIds(db: Db, ids: readonly number[]): Promise<Set<number>> {
  const rows = await collectChunks(idChunks(ids), (chunk) => db.selectFrom("messages").select("id").where("id", "in", chunk).execute());
  return new Set(rows.map((r) => r.id));
}

/**
 * A consistent copy of a running server's SQLite database, with SQLite's online backup API
 * (better-sqlite3's `backup`), from another process while the server writes.
 *
 * The copy is made in one step: the backup API restarts from the first page whenever another
 * connection writes the source between two steps, so a copy in small steps under a steady
 * stream of sends might never end. One step reads every page inside one read transaction, which
 * in WAL mode holds up no writer and sees exactly the commits made before it began.
 */
import SqliteDatabase from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "../schema/database.ts";
import { readSnapshotContents, type SnapshotContents } from "./backup-contents.ts";

/** better-sqlite3's most pages per step (a 32-bit count): every page at once. */
const ALL_PAGES = 0x7fffffff;

/** Copies the database file `source` into the new file `dest` and reads what the copy holds. */
export async function snapshotSqlite(source: string, dest: string): Promise<SnapshotContents> {
  const conn = new SqliteDatabase(source, { fileMustExist: true });
  try {
    // The server's writer may hold the lock for a commit when the read transaction starts.
    conn.pragma("busy_timeout = 5000");
    // The first step copies nothing and sizes the copy; the progress callback sets the next step's pages.
    await conn.backup(dest, { progress: () => ALL_PAGES });
  } finally {
    conn.close();
  }
  // The copy is one file: out of WAL mode it needs no -wal or -shm beside it (the server turns WAL back on).
  const copy = new SqliteDatabase(dest, { fileMustExist: true });
  copy.pragma("journal_mode = DELETE");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: copy }) });
  try {
    return await readSnapshotContents(db);
  } finally {
    await db.destroy();
  }
}

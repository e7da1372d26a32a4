/**
 * The one consistent state of the store an organization export reads: a read-only transaction
 * of its own, never on the server's connections' shared path, held for the whole export.
 * - SQLite: a second connection to the store's file (found with PRAGMA database_list when only
 *   the server's handle is given), query-only, in a deferred read transaction begun by a first
 *   read: in WAL mode it keeps reading that commit while the server goes on writing, and the
 *   server's writer never waits for it (checkpoints are PASSIVE).
 * - PostgreSQL: REPEATABLE READ READ ONLY on a connection of its own (a new one-connection pool
 *   when the URL is known, else one connection held out of the server's pool).
 * Every read through `db` sees the snapshot taken when it was opened; `close` ends it.
 */
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import type { Database } from "../schema/database.ts";
import type { Engine } from "../schema/types.ts";
import { SqliteLiteralLimits } from "../engine/sqlite-literal-limits.ts";

/** An open snapshot: reads through `db`; `close` ends the transaction and its connection. */
export type ReadSnapshot = { db: Kysely<Database>; close(): Promise<void> };

/** Where a snapshot is opened from: a handle on the store (a server's, the CLI's), or a PostgreSQL URL. */
export type SnapshotSource = { db: Kysely<Database>; engine: Engine } | { databaseUrl: string };

/** The file of a SQLite handle's main database. */
async function sqliteFile(db: Kysely<Database>): Promise<string> {
  const rows = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
  const main = rows.rows.find((r) => r.name === "main");
  if (!main?.file) throw new Error("the store's SQLite database has no file to open a snapshot on");
  return main.file;
}

async function sqliteSnapshot(file: string): Promise<ReadSnapshot> {
  const conn = new SqliteDatabase(file, { fileMustExist: true });
  conn.pragma("busy_timeout = 5000");
  conn.pragma("query_only = ON");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: conn }), plugins: [new SqliteLiteralLimits()] });
  await sql`begin`.execute(db);
  // The read transaction, and with it the snapshot, starts at the first read.
  await sql`select count(*) from sqlite_master`.execute(db);
  return {
    db,
    async close() {
      await sql`rollback`.execute(db);
      await db.destroy();
    },
  };
}

/**
 * REPEATABLE READ READ ONLY on one connection held out of `db`'s pool until `close`; `after`
 * runs once it is given back (a pool of the snapshot's own is then ended).
 */
async function pinnedSnapshot(db: Kysely<Database>, after: () => Promise<void> = async () => {}): Promise<ReadSnapshot> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: Promise<void>;
  let conn: Kysely<Database>;
  try {
    conn = await new Promise<Kysely<Database>>((resolve, reject) => {
      held = db.connection().execute(async (c) => {
        await sql`begin isolation level repeatable read read only`.execute(c);
        // The snapshot is taken by the transaction's first statement.
        await sql`select 1`.execute(c);
        resolve(c);
        await released;
        await sql`rollback`.execute(c);
      });
      held.catch(reject);
    });
  } catch (err) {
    await after();
    throw err;
  }
  return {
    db: conn,
    async close() {
      release();
      try {
        await held;
      } finally {
        await after();
      }
    },
  };
}

/** Opens a read-only snapshot of the store for an export. */
export async function openReadSnapshot(source: SnapshotSource): Promise<ReadSnapshot> {
  if ("db" in source) return source.engine === "sqlite" ? sqliteSnapshot(await sqliteFile(source.db)) : pinnedSnapshot(source.db);
  const own = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: source.databaseUrl, max: 1 }) }) });
  return pinnedSnapshot(own, () => own.destroy());
}

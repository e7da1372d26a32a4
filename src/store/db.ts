/** Opens the database (SQLite by default, PostgreSQL with DATABASE_URL) and runs migrations. */
import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Transaction } from "kysely";
import type { Database } from "./schema.ts";
import { migrations } from "./migrations/index.ts";
import { withStatementCache } from "./sqlite-statements.ts";

/** The database or a transaction on it: every store function takes either. */
export type Db = Kysely<Database> | Transaction<Database>;

export type Engine = "sqlite" | "postgres";

export type Store = { db: Kysely<Database>; engine: Engine; close(): Promise<void> };

// PostgreSQL returns int8 (COUNT, SUM, bigint columns) as strings; our ids and times fit a double.
pg.types.setTypeParser(20, (v) => Number(v));

/** Opens the configured store: PostgreSQL when a URL is given, else SQLite at `<dataDir>/parley.db`. */
export function openStore(opts: { databaseUrl: string | null; dataDir: string }): Store {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: "postgres", close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = new SqliteDatabase(path.join(opts.dataDir, "parley.db"));
  file.pragma("journal_mode = WAL");
  file.pragma("synchronous = NORMAL");
  file.pragma("foreign_keys = ON");
  file.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
  return { db, engine: "sqlite", close: () => db.destroy() };
}

/** Brings the schema up to date; throws with the failing migration's name. */
export async function migrate(store: Store): Promise<void> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.engine) },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error) {
    throw new Error(`migration ${failed?.migrationName ?? "?"} failed: ${String(error)}`);
  }
}

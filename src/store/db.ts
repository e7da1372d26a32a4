/** Opens the database (SQLite by default, PostgreSQL with DATABASE_URL) and runs migrations. */
import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { Kysely, Migrator, PostgresDialect } from "kysely";
import type { Database } from "./schema/database.ts";
import type { Engine } from "./schema/types.ts";
import { migrations } from "./migrations/index.ts";
import { DEFAULT_GROUP_COMMIT_MAX, DEFAULT_PG_POOL_SIZE, DEFAULT_PG_WRITE_LANE_WAIT_MS, DEFAULT_PG_WRITE_LANES, DEFAULT_SQLITE_CACHE_MB, DEFAULT_SQLITE_STATEMENT_CACHE_KB } from "../config.ts";
import { groupCommitter, type GroupCommitter } from "./commit/group-commit.ts";
import { withStatementCache } from "./engine/sqlite-statements.ts";
import { SqliteLiteralLimits } from "./engine/sqlite-literal-limits.ts";
import { ImmediateSqliteDialect } from "./engine/sqlite-immediate.ts";
import { attachReadCache, shareReadCache } from "./engine/read-cache.ts";
import { TableVersions } from "./engine/table-versions.ts";
import { listenForCommits, PgTableVersions, watchPool } from "./engine/pg-table-versions.ts";
import { useNamedStatements } from "./engine/pg-named-statements.ts";
import { startCheckpointer } from "./engine/sqlite-checkpointer.ts";
import { pgGroupCommitter } from "./commit/pg-group-commit.ts";

/** What openStore reads of the configuration (config.ts documents each). */
type StoreOptions = { databaseUrl: string | null; dataDir: string; groupCommitMax?: number; sqliteCacheMb?: number; sqliteStatementCacheKb?: number; pgPoolSize?: number; pgWriteLanes?: number; pgWriteLaneWaitMs?: number; pgNamedPageQueries?: number };

/** An open database: the Kysely handles, its engine and what closes it. */
export type Store = {
  /** Reads and writes; migrations, the first-start bootstrap, the CLI and tests use it. */
  db: Kysely<Database>;
  /**
   * Reads outside a transaction, as requests make them. On SQLite a second, query-only
   * connection: WAL lets it read the last commit while a write batch holds the writer, so
   * requests do not queue behind commits. On PostgreSQL the same pool as `db`.
   */
  reader: Kysely<Database>;
  engine: Engine;
  /** Runs one write transaction (on SQLite, batched with concurrent ones into one commit). */
  transact: GroupCommitter;
  close(): Promise<void>;
};

// PostgreSQL returns int8 (COUNT, SUM, bigint columns) as strings; our ids and times fit a double.
pg.types.setTypeParser(20, (v) => Number(v));

/** Opens the configured store: PostgreSQL when a URL is given, else SQLite at `<dataDir>/parley.db`. */
export function openStore(opts: StoreOptions): Store {
  if (opts.databaseUrl) {
    // No JIT: the planner's row estimates for the recursive group queries grow with their seed
    // (25,000 rows per seed group), so a few dozen seed groups crossed jit_above_cost and every
    // such query spent ~150 ms compiling itself; this server's queries are all short.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.pgPoolSize ?? DEFAULT_PG_POOL_SIZE, options: "-c jit=off" });
    const versions = new PgTableVersions();
    watchPool(pool, versions);
    // After watchPool: this wrapper runs first and hands the watcher a named query.
    useNamedStatements(pool, opts.pgNamedPageQueries);
    const listener = listenForCommits(opts.databaseUrl, versions);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    attachReadCache(db, versions);
    // Write transactions batched into shared commits under load, one lane (pooled connection) at a
    // time and at most pgWriteLanes when the open ones are slow; the rest of the pool serves reads
    // (pg-group-commit.ts).
    const lanes = Math.min(opts.pgWriteLanes ?? DEFAULT_PG_WRITE_LANES, (opts.pgPoolSize ?? DEFAULT_PG_POOL_SIZE) - 1);
    const transact = pgGroupCommitter(db, { lanes: Math.max(1, lanes), maxBatch: Math.max(1, opts.groupCommitMax ?? DEFAULT_GROUP_COMMIT_MAX), laneWaitMs: opts.pgWriteLaneWaitMs ?? DEFAULT_PG_WRITE_LANE_WAIT_MS });
    return {
      db,
      reader: db,
      engine: "postgres",
      transact,
      close: async () => {
        await listener.close();
        await db.destroy();
      },
    };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, "parley.db");
  const cacheMb = opts.sqliteCacheMb ?? DEFAULT_SQLITE_CACHE_MB;
  const statementBytes = (opts.sqliteStatementCacheKb ?? DEFAULT_SQLITE_STATEMENT_CACHE_KB) * 1024;
  const writer = sqliteConnection(file, false, cacheMb);
  const checkpointer = startCheckpointer(file, writer);
  const dataVersion = writer.prepare("pragma data_version").pluck();
  const versions = new TableVersions(() => dataVersion.get() as number, () => checkpointer.noteWrite());
  const db = sqliteKysely(writer, statementBytes, versions);
  const reader = sqliteKysely(sqliteConnection(file, true, cacheMb), statementBytes);
  attachReadCache(db, versions);
  shareReadCache(reader, db);
  const transact = groupCommitter(db, Math.max(1, opts.groupCommitMax ?? DEFAULT_GROUP_COMMIT_MAX));
  return {
    db,
    reader,
    engine: "sqlite",
    transact,
    close: async () => {
      await checkpointer.stop();
      await reader.destroy();
      await db.destroy();
    },
  };
}

/** One SQLite connection (WAL); `queryOnly` refuses every write on it. */
function sqliteConnection(file: string, queryOnly: boolean, cacheMb: number): SqliteDatabase.Database {
  const conn = new SqliteDatabase(file);
  conn.pragma("journal_mode = WAL");
  conn.pragma("synchronous = NORMAL");
  conn.pragma("foreign_keys = ON");
  conn.pragma("busy_timeout = 5000");
  // A negative cache_size counts KiB. Statement journals (the savepoints of group commit) and
  // temporary sort trees stay in memory rather than in temporary files.
  conn.pragma(`cache_size = -${cacheMb * 1024}`);
  conn.pragma("temp_store = MEMORY");
  if (queryOnly) conn.pragma("query_only = ON");
  return conn;
}

/**
 * Kysely over a connection, its compiled statements kept up to `statementBytes` of SQL
 * (sqlite-statements.ts); the writer's statements are reported to `versions` (read-cache.ts).
 * Its transactions begin immediate (engine/sqlite-immediate.ts): other processes write the
 * same file.
 */
function sqliteKysely(conn: SqliteDatabase.Database, statementBytes: number, versions?: TableVersions): Kysely<Database> {
  const database = withStatementCache(conn, statementBytes, versions);
  return new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }), plugins: [new SqliteLiteralLimits()] });
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

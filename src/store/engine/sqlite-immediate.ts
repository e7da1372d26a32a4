/**
 * SQLite transactions that take the write lock when they begin. Kysely's SQLite driver opens a
 * transaction with a plain `begin` (deferred): it reads first and asks for the write lock at its
 * first write. When another connection (an admin command, a second server process, `sqlite3`)
 * has committed meanwhile, the read snapshot is stale and SQLite refuses the upgrade at once with
 * SQLITE_BUSY, past busy_timeout: "database is locked". `begin immediate` waits for the lock
 * (up to busy_timeout) before reading anything, so every writer takes its turn and succeeds.
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryCompiler } from "kysely";
import { InListBucketsCompiler } from "./in-list-buckets.ts";

const BEGIN_IMMEDIATE = CompiledQuery.raw("begin immediate");

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(BEGIN_IMMEDIATE);
  }
}

/** Kysely's SQLite dialect with immediate write transactions and padded `in` lists (in-list-buckets.ts). */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];

  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createQueryCompiler(): QueryCompiler {
    return new InListBucketsCompiler();
  }
}

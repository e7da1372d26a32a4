/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely's SQLite driver prepares each
 * query anew. This keeps the most recently used statements by SQL text, so a query shape that
 * repeats (every query of a message send does) is compiled once. Statements are only run to
 * completion (`all`/`run`), never left mid-iteration, so sharing one per SQL text is safe.
 */
import type SqliteDatabase from "better-sqlite3";
import type { SqliteDatabase as KyselySqliteDatabase } from "kysely";
import type { TableVersions } from "./table-versions.ts";

/** How many distinct statements stay compiled (shapes with `in (?, ?, ...)` lists vary by length). */
const MAX_STATEMENTS = 1000;

/** Longer SQL is compiled for its one run only: a long id list written as literals (chunks.ts) rarely repeats. */
const MAX_CACHED_SQL_LENGTH = 64 * 1024;

/** `versions`, when given, hears of every statement before it runs (the writer's). */
export function withStatementCache(file: SqliteDatabase.Database, versions?: TableVersions): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(sql: string) {
      // Kysely's driver runs the statement synchronously right after preparing it.
      versions?.beforeStatement(sql, file.inTransaction);
      if (sql.length > MAX_CACHED_SQL_LENGTH) return file.prepare(sql);
      let stmt = cache.get(sql);
      if (stmt) {
        // Re-insert to mark it most recently used.
        cache.delete(sql);
      } else {
        stmt = file.prepare(sql);
        if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, stmt);
      return stmt;
    },
    close() {
      cache.clear();
      file.close();
    },
  };
}

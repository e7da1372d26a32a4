/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely's SQLite driver prepares each
 * query anew. This keeps the most recently used statements by SQL text, so a query shape that
 * repeats (every query of a message send does) is compiled once. Statements are only run to
 * completion (`all`/`run`), never left mid-iteration, so sharing one per SQL text is safe.
 *
 * The cache is bounded by the length of the SQL it keeps: a compiled statement lives in SQLite's
 * native memory, 20 to 30 bytes for each byte of its text (measured here: a 1,666-row insert, 18 KiB
 * of SQL, takes about 410 KiB compiled), which V8 does not see; an evicted statement is freed only when V8
 * collects its wrapper. Lists and multi-row inserts come in few lengths (engine/in-list-buckets.ts,
 * chunks.ts), so the shapes a server runs fit the bound and stay compiled.
 */
import type SqliteDatabase from "better-sqlite3";
import type { SqliteDatabase as KyselySqliteDatabase } from "kysely";
import type { TableVersions } from "./table-versions.ts";

/** A statement longer than this share of the budget is compiled for its one run only. */
const LONGEST_SHARE = 32;

/**
 * `budgetBytes` bounds the SQL text kept compiled; `versions`, when given, hears of every
 * statement before it runs (the writer's).
 */
export function withStatementCache(file: SqliteDatabase.Database, budgetBytes: number, versions?: TableVersions): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const longest = Math.floor(budgetBytes / LONGEST_SHARE);
  let kept = 0;
  return {
    prepare(sql: string) {
      // Kysely's driver runs the statement synchronously right after preparing it.
      versions?.beforeStatement(sql, file.inTransaction);
      if (sql.length > longest) return file.prepare(sql);
      let stmt = cache.get(sql);
      if (stmt) {
        // Re-insert to mark it most recently used.
        cache.delete(sql);
      } else {
        stmt = file.prepare(sql);
        kept += sql.length;
        for (const oldest of cache.keys()) {
          if (kept <= budgetBytes) break;
          cache.delete(oldest);
          kept -= oldest.length;
        }
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

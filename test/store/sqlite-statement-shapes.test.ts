/**
 * SQLite keeps each distinct SQL text compiled in native memory (store/engine/sqlite-statements.ts), so
 * the texts a server runs must come in few shapes: `in` lists padded to powers of two
 * (store/engine/in-list-buckets.ts) and multi-row inserts cut into power-of-two chunks
 * (store/engine/chunks.ts rowChunks). Here: lists and inserts of every length up to past a chunk compile
 * a few dozen statements, each once, with the same answers; and the cache keeps at most its budget
 * of SQL text, compiling a longer statement for its one run.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import SqliteDatabase from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { eachChunk, idChunks, rowChunks } from "../../src/store/engine/chunks.ts";
import { paddedList } from "../../src/store/engine/in-list-buckets.ts";
import { ImmediateSqliteDialect } from "../../src/store/engine/sqlite-immediate.ts";
import { withStatementCache } from "../../src/store/engine/sqlite-statements.ts";

type Db = Kysely<{ f: { user_id: number; message_id: number; flags: number } }>;

/** An in-memory database whose compilations are recorded, behind the statement cache. */
function recorded(budgetBytes: number): { db: Db; compiled: string[] } {
  const file = new SqliteDatabase(":memory:");
  file.exec("create table f (user_id integer not null, message_id integer not null, flags integer not null, primary key (user_id, message_id))");
  const compiled: string[] = [];
  const prepare = file.prepare.bind(file);
  file.prepare = ((sql: string) => {
    compiled.push(sql);
    return prepare(sql);
  }) as typeof file.prepare;
  return { db: new Kysely({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(file, budgetBytes) }) }), compiled };
}

describe("statement shapes on SQLite", () => {
  test("padding keeps short lists exact and pads longer ones to a power of two with the last value", () => {
    assert.deepEqual(paddedList([1, 2, 3]), [1, 2, 3]);
    assert.deepEqual(paddedList([1, 2, 3, 4, 5, 6, 7, 8, 9]), [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9]);
    const sizes = new Set<number>();
    for (let n = 1; n <= 5000; n++) for (const chunk of rowChunks(Array.from({ length: n }, (_, i) => ({ a: i, b: i, c: i })))) sizes.add(chunk.length);
    // 1..8 exactly, then powers of two up to 1,024 rows (3 columns, at most 5,000 bound values).
    assert.deepEqual([...sizes].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256, 512, 1024]);
  });

  test("inserts and `in` lists of every length compile a few statements, each once, with the same answers", async () => {
    const { db, compiled } = recorded(512 * 1024);
    for (let n = 1; n <= 1800; n += 7) {
      const ids = Array.from({ length: n }, (_, i) => i * 3 + 1);
      await eachChunk(rowChunks(ids.map((message_id) => ({ user_id: n, message_id, flags: 0 }))), (values) =>
        db.insertInto("f").values(values).onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing()).execute(),
      );
      let found = 0;
      let outside = 0;
      for (const chunk of idChunks(ids)) {
        found += (await db.selectFrom("f").select("message_id").where("user_id", "=", n).where("message_id", "in", chunk).execute()).length;
        outside += (await db.selectFrom("f").select("message_id").where("user_id", "=", n).where("message_id", "not in", chunk).execute()).length;
      }
      assert.equal(found, n);
      assert.equal(outside, n * idChunks(ids).length - n);
    }
    const distinct = new Set(compiled);
    assert.equal(compiled.length, distinct.size, "each text compiled once");
    assert.ok(distinct.size <= 3 * 15, `${distinct.size} distinct statements`);
    await db.destroy();
  });

  test("the cache keeps at most its budget of SQL text and compiles a longer statement each time", async () => {
    const budget = 2048;
    const { db, compiled } = recorded(budget);
    const query = (tag: number) => db.selectFrom("f").select("flags").where("user_id", "=", tag).where("message_id", "=", tag);
    const text = query(0).compile().sql;
    const fit = Math.floor(budget / text.length);
    // Same text each time: one compilation for many runs.
    for (let i = 0; i < 5; i++) await query(1).execute();
    assert.equal(compiled.length, 1);
    // Texts of their own (a literal in each), more than fit: the oldest are compiled again.
    const own = (tag: number) => db.selectFrom("f").select("flags").where("user_id", "=", sql<number>`${sql.lit(tag)}`).execute();
    for (let tag = 0; tag < fit * 2; tag++) await own(tag);
    const before = compiled.length;
    await own(fit * 2 - 1);
    assert.equal(compiled.length, before, "a recent text stays compiled");
    await own(0);
    assert.equal(compiled.length, before + 1, "the oldest was evicted");
    // Longer than a 32nd of the budget: compiled for each run.
    const long = () => db.selectFrom("f").select("flags").where("message_id", "in", Array.from({ length: 64 }, (_, i) => i)).execute();
    await long();
    await long();
    assert.equal(compiled.length, before + 3);
    await db.destroy();
  });
});

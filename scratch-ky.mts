import { openStore, migrate } from "./src/store/db.ts";
import { sql } from "kysely";
import fs from "node:fs";
fs.rmSync("/tmp/ky-db", { recursive: true, force: true });
const store = openStore({ databaseUrl: null, dataDir: "/tmp/ky-db" });
await migrate(store);
const q = sql`select id from realms where id = ${1}`.compile(store.db);
const N = 50000;
for (let r = 0; r < 2; r++) {
  let t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await store.reader.executeQuery(q);
  console.log("kysely reader", (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), "us");
  await store.transact(async (tx) => {
    t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await tx.executeQuery(q);
    console.log("kysely tx", (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), "us");
  });
  const Database = (await import("better-sqlite3")).default;
  const raw = new Database("/tmp/ky-db/parley.db");
  const st = raw.prepare(q.sql);
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await Promise.resolve(st.all(...q.parameters));
  console.log("direct", (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), "us");
}
await store.close();

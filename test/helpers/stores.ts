/** Which stores the API suites run on, and fresh databases for each suite. */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export type StoreKind = "sqlite" | "postgres";

/** STORES=sqlite,postgres (the default) or a subset. */
export const STORES: StoreKind[] = (process.env.STORES ?? "sqlite,postgres")
  .split(",")
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === "sqlite" || s === "postgres");

const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh, empty store: a temp directory for SQLite, a new database for PostgreSQL. */
export type FreshStore = { kind: StoreKind; dataDir: string; databaseUrl: string | null; drop(): Promise<void> };

async function pgAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    // Never skip silently: a suite that asked for PostgreSQL and cannot reach it fails.
    throw new Error(`PostgreSQL is unreachable at ${PG_ADMIN_URL} (set STORES=sqlite to run without it): ${String(err)}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Makes an empty store of the given kind. */
export async function freshStore(kind: StoreKind): Promise<FreshStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-test-"));
  if (kind === "sqlite") {
    return { kind, dataDir, databaseUrl: null, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `parley_t_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  await pgAdmin((c) => c.query(`create database ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      await pgAdmin(async (c) => {
        // pg's Pool.end() resolves before its connections have closed; forcing the drop while
        // they close would kill them and raise an uncaught error in the closing process.
        for (let tries = 0; tries < 100; tries++) {
          const open = await c.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
          if (open.rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`drop database if exists ${name} with (force)`);
      });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * PostgreSQL's side of backups, with its own client programs: pg_dump reads one snapshot of a
 * running database (its custom format, uncompressed: the backup archive compresses it), and
 * pg_restore loads it into an empty one in a single transaction, so a failed restore leaves
 * nothing behind. The snapshot pg_dump reads is exported by a transaction of ours, which first
 * reads the snapshot's contents (backup-contents.ts): the files the backup takes are exactly
 * those the dumped rows name.
 */
import { spawn } from "node:child_process";
import pg from "pg";
import { Kysely, PostgresDialect, sql } from "kysely";
import type { Database } from "../schema/database.ts";
import { readSnapshotContents, type SnapshotContents } from "./backup-contents.ts";

/** The tail of a client program's error output worth showing. */
const STDERR_LINES = 8;

/** The URL without its password, and the environment handing the password over (never on the command line, which `ps` shows). */
function connection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = "";
  return { dbname: url.toString(), env: password === "" ? process.env : { ...process.env, PGPASSWORD: password } };
}

/** Runs pg_dump or pg_restore on the database; fails with the program's own last words. */
function runClient(program: "pg_dump" | "pg_restore", databaseUrl: string, args: string[]): Promise<void> {
  const { dbname, env } = connection(databaseUrl);
  return new Promise((resolve, reject) => {
    const child = spawn(program, ["--no-password", `--dbname=${dbname}`, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-16_384)));
    child.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "ENOENT"
          ? new Error(`${program} was not found: install PostgreSQL's client programs (Debian: apt-get install postgresql-client), of the server's major version or newer`)
          : err,
      );
    });
    child.once("close", (code) => {
      if (code === 0) return resolve();
      const said = stderr.trim().split("\n").slice(-STDERR_LINES).join("\n");
      reject(new Error(`${program} failed (exit ${code})${said ? `:\n${said}` : ""}`));
    });
  });
}

/** Dumps the database at `databaseUrl` into the new file `dest` (pg_dump's custom format) and reads what the dump holds. */
export async function snapshotPostgres(databaseUrl: string, dest: string): Promise<SnapshotContents> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }) }) });
  try {
    return await db.connection().execute(async (conn) => {
      await sql`begin isolation level repeatable read read only`.execute(conn);
      try {
        // The transaction's snapshot, taken by its first statement: pg_dump reads the same one.
        const exported = await sql<{ id: string }>`select pg_export_snapshot() as id`.execute(conn);
        const contents = await readSnapshotContents(conn);
        await runClient("pg_dump", databaseUrl, ["--format=custom", "--compress=0", `--snapshot=${exported.rows[0].id}`, `--file=${dest}`]);
        return contents;
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
  } finally {
    await db.destroy();
  }
}

/** How many tables, sequences and views the database's own schemas hold (0: empty, a restore may load it). */
export async function countRelations(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'p', 'S', 'v', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`,
    );
    return res.rows[0].n;
  } finally {
    await client.end();
  }
}

/** Loads a dump made by snapshotPostgres into the (empty) database at `databaseUrl`, all or nothing. */
export function restorePostgres(databaseUrl: string, dumpFile: string): Promise<void> {
  // The objects belong to whoever restores them: the dump's roles may not exist here.
  return runClient("pg_restore", databaseUrl, ["--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges", dumpFile]);
}

/**
 * PostgreSQL only: a commit that writes a table some cached read depends on notifies every
 * process (`NOTIFY parley_tables, '<table>'`), so their read caches drop what it changed
 * (pg-table-versions.ts). Statement-level triggers fire once per statement, whoever writes:
 * another Parley process, a migration, psql. PostgreSQL folds a transaction's identical
 * notifications into one and delivers them only if it commits.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";

/** The tables the triggers watch; test/store/read-cache.test.ts checks it and later migrations' lists cover every cached read. */
export const NOTIFYING_TABLES = [
  "alert_words",
  "default_streams",
  "linkifiers",
  "muted_users",
  "realms",
  "recipients",
  "sessions",
  "streams",
  "subscriptions",
  "user_group_members",
  "user_group_subgroups",
  "user_groups",
  "user_topics",
  "users",
] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== "postgres") return;
  await sql`
    create or replace function parley_notify_table() returns trigger language plpgsql as $$
    begin
      perform pg_notify('parley_tables', tg_table_name);
      return null;
    end $$`.execute(db);
  await createNotifyTriggers(db, NOTIFYING_TABLES);
}

/** Has each of `tables` notify its commits through parley_notify_table (later migrations add tables). */
export async function createNotifyTriggers(db: Kysely<unknown>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    await sql`create trigger parley_notify after insert or update or delete or truncate on ${sql.table(table)} for each statement execute function parley_notify_table()`.execute(db);
  }
}

/** Migration 0024: commit notifications for the read caches of every process. */
export function tableNotifyMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

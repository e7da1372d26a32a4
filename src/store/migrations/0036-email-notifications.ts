/**
 * Email notifications of messages (issue 40): the jobs a send writes for the recipients it could
 * email, the missed-message emails waiting out their batching period, when each user was last
 * considered for a digest, and an HTML part for outgoing email.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("email_notify_jobs"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("message_id", "integer", (c) => c.notNull())
    .addColumn("recipients", "text", (c) => c.notNull())
    .addColumn("failed_tries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("due_at_ms", timeType(engine), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("email_notify_jobs_due").on("email_notify_jobs").columns(["due_at_ms"]).execute();
  // A send to a large channel writes a row per recipient here: no foreign keys to check per row
  // (users and realms are never deleted; a deactivated user's batch is dropped when due).
  await withId(db.schema.createTable("missed_message_emails"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull())
    .addColumn("user_id", "integer", (c) => c.notNull())
    .addColumn("message_id", "integer", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("mentioned_group_id", "integer")
    .addColumn("due_at_ms", timeType(engine), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("missed_message_emails_user_message").on("missed_message_emails").columns(["user_id", "message_id"]).unique().execute();
  await db.schema.createIndex("missed_message_emails_due").on("missed_message_emails").columns(["due_at_ms"]).execute();
  await db.schema
    .createTable("digest_emails")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("last_digest_at", timeType(engine), (c) => c.notNull())
    .execute();
  // Migration 0035 (account emails, written beside this one) adds the same column: whichever
  // runs first adds it.
  if (!(await hasColumn(db, engine, "email_jobs", "html_body"))) await db.schema.alterTable("email_jobs").addColumn("html_body", "text").execute();
}

/** Whether the table has the column (SQLite's table_info, PostgreSQL's information schema). */
async function hasColumn(db: Kysely<unknown>, engine: Engine, table: string, column: string): Promise<boolean> {
  const rows =
    engine === "postgres"
      ? await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(db)
      : await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.rows.some((r) => r.name === column);
}

/** Migration 0036: email_notify_jobs, missed_message_emails, digest_emails, email_jobs.html_body (unless 0035 added it). */
export function emailNotificationsMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

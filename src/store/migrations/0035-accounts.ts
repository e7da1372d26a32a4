/**
 * Issue 40, accounts: the single-use links that reset a password or confirm a new email address
 * (Zulip's Confirmation rows with their EmailChangeStatus), each user's last login (for the
 * send-password-resets command's --only-never-logged-in), and an HTML part for outgoing email.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("account_tokens"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("kind", "integer", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("old_email", "text")
    .addColumn("new_email", "text")
    .addColumn("created_at", timeType(engine), (c) => c.notNull())
    .addColumn("expires_at", timeType(engine), (c) => c.notNull())
    .addColumn("status", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // A link is looked up by its digest; a user's open links of a kind are revoked together.
  await db.schema.createIndex("account_tokens_token_hash").on("account_tokens").columns(["token_hash"]).unique().execute();
  await db.schema.createIndex("account_tokens_user_kind").on("account_tokens").columns(["user_id", "kind"]).execute();
  await db.schema.createIndex("account_tokens_expires_at").on("account_tokens").columns(["expires_at"]).execute();
  await db.schema.alterTable("users").addColumn("last_login", timeType(engine)).execute();
  // Before this column, a login left only its browser session behind (API key logins left nothing).
  await sql`UPDATE users SET last_login = (SELECT MAX(created_at) FROM sessions WHERE sessions.user_id = users.id)`.execute(db);
  await db.schema.alterTable("email_jobs").addColumn("html_body", "text").execute();
}

/** Migration 0035: account_tokens, users.last_login, email_jobs.html_body. */
export function accountsMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

/**
 * Invitations (issue 14): email invitations and reusable invitation links in one table (Zulip's
 * PreregistrationUser, MultiuseInvite and their Confirmation rows), and the outgoing emails that
 * carry them, sent off the request path.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("invites"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("invited_by", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("email", "text")
    .addColumn("is_multiuse", "integer", (c) => c.notNull())
    .addColumn("invited_as", "integer", (c) => c.notNull())
    .addColumn("stream_ids", "text", (c) => c.notNull())
    .addColumn("include_realm_default_subscriptions", "integer", (c) => c.notNull())
    .addColumn("notify_referrer_on_join", "integer", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("link_token", "text")
    .addColumn("invited_at", timeType(engine), (c) => c.notNull())
    .addColumn("expires_at", timeType(engine))
    .addColumn("status", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("invites_token_hash").on("invites").columns(["token_hash"]).unique().execute();
  await db.schema.createIndex("invites_realm_status").on("invites").columns(["realm_id", "status", "invited_by"]).execute();
  await withId(db.schema.createTable("email_jobs"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("to_address", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("failed_tries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("due_at_ms", timeType(engine), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("email_jobs_due").on("email_jobs").columns(["due_at_ms"]).execute();
}

/** Migration 0022: invites, email_jobs. */
export function invitesMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

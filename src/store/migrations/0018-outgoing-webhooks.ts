/** The outgoing-webhook delivery jobs. */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("outgoing_webhook_jobs"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("bot_user_id", "integer", (c) => c.notNull().references("users.id"))
    // No reference: a deleted message leaves its job to be dropped by the worker.
    .addColumn("message_id", "integer", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("failed_tries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("due_at_ms", timeType(engine), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("outgoing_webhook_jobs_due").on("outgoing_webhook_jobs").columns(["due_at_ms"]).execute();
}

/** Migration 0018: outgoing_webhook_jobs. */
export function outgoingWebhooksMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

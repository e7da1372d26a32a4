/**
 * Drafts and scheduled messages. The delivery worker asks for the earliest undelivered, unfailed
 * message of every realm (the index on delivered, failed, scheduled_timestamp); users list their own.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const time = timeType(engine);
  await withId(db.schema.createTable("drafts"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("direct_user_ids", "text")
    .addColumn("topic", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("last_edit_time", engine === "postgres" ? "double precision" : "real", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("drafts_user").on("drafts").columns(["user_id", "last_edit_time"]).execute();

  await withId(db.schema.createTable("scheduled_messages"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("recipient_id", "integer", (c) => c.notNull().references("recipients.id"))
    .addColumn("stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("topic", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("rendered_content", "text", (c) => c.notNull())
    .addColumn("sending_client", "text", (c) => c.notNull())
    .addColumn("scheduled_timestamp", time, (c) => c.notNull())
    .addColumn("read_by_sender", "integer", (c) => c.notNull())
    .addColumn("has_attachment", "integer", (c) => c.notNull())
    .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
    // No foreign key: a sent message may be deleted later; this only records which it was.
    .addColumn("delivered_message_id", "integer")
    .addColumn("failed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failure_message", "text")
    .execute();
  await db.schema.createIndex("scheduled_messages_due").on("scheduled_messages").columns(["delivered", "failed", "scheduled_timestamp"]).execute();
  await db.schema.createIndex("scheduled_messages_sender").on("scheduled_messages").columns(["sender_id", "delivered", "scheduled_timestamp"]).execute();
}

/** Migration 0011: the drafts and scheduled_messages tables. */
export function draftsScheduledMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

/**
 * Message notifications on phones (issue 13): which messages each user holds a notification for
 * on their phones (Zulip's UserMessage flag active_mobile_push_notification, kept here as rows
 * since it is rare and must never show in a message's flags), so that reading, deleting or
 * editing the mention away can take it back.
 */
import type { Kysely, Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("push_active_notifications")
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("message_id", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("push_active_notifications_pk", ["user_id", "message_id"])
    .execute();
  await db.schema.createIndex("push_active_notifications_message").on("push_active_notifications").columns(["message_id"]).execute();
}

/** Migration 0021: push_active_notifications. */
export function pushNotificationsMigration(): Migration {
  return { up };
}

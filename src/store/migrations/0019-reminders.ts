/**
 * Reminders (Zulip's ScheduledMessage with delivery type REMIND): a scheduled message's kind, the
 * message a reminder is about, and the note its owner wrote.
 */
import type { Kysely, Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("scheduled_messages").addColumn("delivery_type", "integer", (c) => c.notNull().defaultTo(1)).execute();
  // No reference: the target message may be deleted before the reminder is due.
  await db.schema.alterTable("scheduled_messages").addColumn("reminder_target_message_id", "integer").execute();
  await db.schema.alterTable("scheduled_messages").addColumn("reminder_note", "text").execute();
}

/** Migration 0019: delivery_type, reminder_target_message_id and reminder_note on scheduled_messages. */
export function remindersMigration(): Migration {
  return { up };
}

/**
 * The Welcome Bot's custom message (FL 416): an invitation may carry its own text for the people
 * who join through it (null: the organization's, kept in realms.settings; "": none).
 */
import type { Kysely, Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("invites").addColumn("welcome_message_custom_text", "text").execute();
}

/** Migration 0034: invites.welcome_message_custom_text. */
export function welcomeMessageMigration(): Migration {
  return { up: (db) => up(db) };
}

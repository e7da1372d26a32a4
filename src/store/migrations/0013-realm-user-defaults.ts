/**
 * realm_user_defaults: the personal settings an organization gives its users created from now
 * on (Zulip's RealmUserDefault), as a JSON object of the values that differ from Zulip's defaults.
 */
import type { Kysely, Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("realm_user_defaults")
    .addColumn("realm_id", "integer", (c) => c.primaryKey().references("realms.id"))
    .addColumn("settings", "text", (c) => c.notNull())
    .execute();
}

/** Migration 0013: the realm_user_defaults table. */
export function realmUserDefaultsMigration(): Migration {
  return { up };
}

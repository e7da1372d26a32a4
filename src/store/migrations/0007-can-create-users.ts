/**
 * users.can_create_users: the per-user permission Zulip requires (with the administrator role)
 * for POST /users. Nobody has it until an operator grants it (`npx parley grant-create-users`),
 * as Zulip's change_user_role management command does.
 */
import type { Kysely, Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("users").addColumn("can_create_users", "integer", (c) => c.notNull().defaultTo(0)).execute();
}

/** Migration 0007: the can_create_users permission of users and bots. */
export function canCreateUsersMigration(): Migration {
  return { up };
}

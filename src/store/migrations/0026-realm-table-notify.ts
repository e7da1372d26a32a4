/**
 * PostgreSQL only: the commit notifications of migration 0024 (its trigger function
 * parley_notify_table) on the realm-wide tables every register reads, now kept by the read
 * cache too: custom emoji, playgrounds, channel folders, custom profile fields and values, new
 * users' default settings and user statuses.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { createNotifyTriggers } from "./0024-table-notify.ts";

/** The tables this migration watches; test/store/read-cache.test.ts counts them with 0024's. */
export const REALM_NOTIFYING_TABLES = [
  "channel_folders",
  "custom_profile_fields",
  "custom_profile_values",
  "realm_emoji",
  "realm_playgrounds",
  "realm_user_defaults",
  "user_status",
] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === "postgres") await createNotifyTriggers(db, REALM_NOTIFYING_TABLES);
}

/** Migration 0026: commit notifications for the realm-wide tables of the register snapshot. */
export function realmTableNotifyMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

/**
 * PostgreSQL only: the commit notifications of migration 0024 (its trigger function
 * parley_notify_table) on the per-user tables every register reads and users seldom write, now
 * kept by the read cache too: saved snippets, navigation views, push devices and scheduled
 * messages.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { createNotifyTriggers } from "./0024-table-notify.ts";

/** The tables this migration watches; test/store/read-cache.test.ts counts them with 0024's and 0026's. */
export const USER_NOTIFYING_TABLES = ["navigation_views", "push_devices", "saved_snippets", "scheduled_messages"] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === "postgres") await createNotifyTriggers(db, USER_NOTIFYING_TABLES);
}

/** Migration 0030: commit notifications for the per-user tables of the register snapshot. */
export function userTableNotifyMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

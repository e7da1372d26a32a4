/**
 * Users' presence: one row per user with the last active and last connected times, numbered by a
 * per-realm sequence so that clients fetch only rows changed since the number they hold.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType } from "./helpers.ts";

function up(engine: Engine) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable("user_presence")
      .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
      .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
      .addColumn("last_active_time", timeType(engine))
      .addColumn("last_connected_time", timeType(engine), (c) => c.notNull())
      .addColumn("last_update_id", "integer", (c) => c.notNull())
      .execute();
    // Incremental fetches ask for a realm's rows past a sequence number.
    await db.schema.createIndex("user_presence_realm_update").on("user_presence").columns(["realm_id", "last_update_id"]).execute();
    await db.schema
      .createTable("presence_sequence")
      .addColumn("realm_id", "integer", (c) => c.primaryKey().references("realms.id"))
      .addColumn("last_update_id", "integer", (c) => c.notNull())
      .execute();
  };
}

/** Migration 0010: user_presence and presence_sequence. */
export function presenceMigration(engine: Engine): Migration {
  return { up: up(engine) };
}

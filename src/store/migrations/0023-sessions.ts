/** Browser sessions (issue 14): the web app's logins, kept in the database so they survive restarts and are shared by every process. */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("sessions"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("key_hash", "text", (c) => c.notNull())
    .addColumn("created_at", timeType(engine), (c) => c.notNull())
    .addColumn("expires_at", timeType(engine), (c) => c.notNull())
    .execute();
  // Every /json request looks its session up by the digest; logouts of a user and the sweep by the others.
  await db.schema.createIndex("sessions_key_hash").on("sessions").columns(["key_hash"]).unique().execute();
  await db.schema.createIndex("sessions_user").on("sessions").columns(["user_id"]).execute();
  await db.schema.createIndex("sessions_expires_at").on("sessions").columns(["expires_at"]).execute();
}

/** Migration 0023: sessions. */
export function sessionsMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

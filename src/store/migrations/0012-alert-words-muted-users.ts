/**
 * Alert words and muted users. The send path asks who muted the sender (the index on
 * muted_user_id) and reads a realm's alert words (the index on realm_id).
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("alert_words"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("word", "text", (c) => c.notNull())
    .addUniqueConstraint("alert_words_user_word", ["user_id", "word"])
    .execute();
  await db.schema.createIndex("alert_words_realm").on("alert_words").columns(["realm_id", "user_id"]).execute();

  await withId(db.schema.createTable("muted_users"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("muted_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("date_muted", timeType(engine), (c) => c.notNull())
    .addUniqueConstraint("muted_users_pair", ["user_id", "muted_user_id"])
    .execute();
  await db.schema.createIndex("muted_users_muted").on("muted_users").columns(["muted_user_id", "user_id"]).execute();
}

/** Migration 0012: the alert_words and muted_users tables. */
export function alertWordsMutedUsersMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

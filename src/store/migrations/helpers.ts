/** Column helpers that differ between SQLite and PostgreSQL. */
import type { CreateTableBuilder } from "kysely";
import type { Engine } from "../schema/types.ts";

/** Adds an auto-incrementing integer primary key named `id`. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, engine: Engine) {
  return engine === "postgres"
    ? table.addColumn("id", "serial", (c) => c.primaryKey())
    : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

/** The column type for UNIX timestamps (seconds). */
export function timeType(engine: Engine): "bigint" | "integer" {
  return engine === "postgres" ? "bigint" : "integer";
}

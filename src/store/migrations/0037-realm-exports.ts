/** Organization data exports (POST /export/realm): the realm_exports table, each row an export and its job. */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("realm_exports"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("acting_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("export_type", "integer", (c) => c.notNull())
    .addColumn("status", "integer", (c) => c.notNull())
    .addColumn("requested_at_ms", timeType(engine), (c) => c.notNull())
    .addColumn("succeeded_at_ms", timeType(engine))
    .addColumn("failed_at_ms", timeType(engine))
    .addColumn("deleted_at_ms", timeType(engine))
    .addColumn("export_path", "text")
    .addColumn("process_id", "text")
    .addColumn("lease_until_ms", timeType(engine))
    .execute();
  await db.schema.createIndex("realm_exports_realm").on("realm_exports").columns(["realm_id", "requested_at_ms"]).execute();
  await db.schema.createIndex("realm_exports_status").on("realm_exports").columns(["status"]).execute();
}

/** Migration 0037: realm_exports. */
export function realmExportsMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

/**
 * Navigation views (FL 390) and channel folders (FL 389), and the channel's folder_id.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("navigation_views"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("fragment", "text", (c) => c.notNull())
    .addColumn("is_pinned", "integer", (c) => c.notNull())
    .addColumn("name", "text")
    .addUniqueConstraint("navigation_views_user_fragment", ["user_id", "fragment"])
    .execute();

  await withId(db.schema.createTable("channel_folders"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("rendered_description", "text", (c) => c.notNull())
    .addColumn("date_created", timeType(engine))
    .addColumn("creator_id", "integer", (c) => c.references("users.id"))
    .addColumn("is_archived", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("order", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("channel_folders_realm").on("channel_folders").columns(["realm_id"]).execute();

  await db.schema.alterTable("streams").addColumn("folder_id", "integer", (c) => c.references("channel_folders.id")).execute();
}

/** Migration 0016: navigation_views, channel_folders, streams.folder_id. */
export function sidebarMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

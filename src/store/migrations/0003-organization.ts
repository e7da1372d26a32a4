/** User status, code playgrounds, linkifiers, custom emoji, saved snippets and attachments. */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const time = timeType(engine);
  await db.schema
    .createTable("user_status")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("status_text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("emoji_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("emoji_code", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("reaction_type", "text", (c) => c.notNull().defaultTo("unicode_emoji"))
    .addColumn("timestamp", time, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("realm_playgrounds"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("pygments_language", "text", (c) => c.notNull())
    .addColumn("url_template", "text", (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("linkifiers"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("pattern", "text", (c) => c.notNull())
    .addColumn("url_template", "text", (c) => c.notNull())
    .addColumn("order", "integer", (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("realm_emoji"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("author_id", "integer", (c) => c.references("users.id"))
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_animated", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await withId(db.schema.createTable("saved_snippets"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("date_created", time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("saved_snippets_user").on("saved_snippets").column("user_id").execute();

  await withId(db.schema.createTable("attachments"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("owner_id", "integer", (c) => c.notNull().references("users.id"))
    // `<realm_id>/<random>/<file name>`, the part after /user_uploads/ in message links.
    .addColumn("path_id", "text", (c) => c.notNull().unique())
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("content_type", "text")
    .addColumn("create_time", time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("attachment_messages")
    .addColumn("attachment_id", "integer", (c) => c.notNull().references("attachments.id"))
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id"))
    .addPrimaryKeyConstraint("attachment_messages_pk", ["attachment_id", "message_id"])
    .execute();
  await db.schema.createIndex("attachment_messages_message").on("attachment_messages").column("message_id").execute();
  await sql`create index attachments_owner on attachments (owner_id, id)`.execute(db);
}

/** The organization-configuration tables of issue 4. */
export function organizationMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

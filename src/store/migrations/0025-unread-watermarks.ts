/**
 * Finding a user's unread messages without reading their whole history. Unread is the default
 * for a received message without a flag row, so the register snapshot used to walk every message
 * the user ever received. Now each user has a watermark: below it, every received message that
 * is unread holds a flag row (the rows are written when the watermark moves, see
 * store/messages/unread-watermarks.ts), and only messages above it are checked for missing rows. Partial
 * indexes make the flag rows that matter cheap to find among a reader's many read rows: the
 * unread and starred ones (the snapshot) and the historical ones (every narrow's visibility test).
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MESSAGE_FLAG } from "../schema/database.ts";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("unread_watermarks")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("message_id", "integer", (c) => c.notNull())
    .execute();
  // The predicates are literal and written as the queries write them: SQLite uses a partial index
  // only for a query term identical to its WHERE.
  await sql`create index user_message_flags_unread on user_message_flags (user_id, message_id) where (flags & ${sql.lit(MESSAGE_FLAG.read)}) = 0`.execute(db);
  await sql`create index user_message_flags_starred on user_message_flags (user_id, message_id) where (flags & ${sql.lit(MESSAGE_FLAG.starred)}) <> 0`.execute(db);
  await sql`create index user_message_flags_historical on user_message_flags (user_id, message_id) where (flags & ${sql.lit(MESSAGE_FLAG.historical)}) <> 0`.execute(db);
}

/** Migration 0025: per-user unread watermarks and partial indexes on unread, starred and historical flag rows. */
export function unreadWatermarksMigration(): Migration {
  return { up };
}

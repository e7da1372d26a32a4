/**
 * Messages. Send cost must not grow with the number of recipients, so there is no row per
 * recipient: who received a channel message follows from subscription periods, and per-user
 * flags are stored only where they differ from the default.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const time = timeType(engine);
  // A conversation: a channel (type 2, type_id = stream id) or a set of users in direct
  // messages (type 3, type_id = direct_groups.id; 1:1 and self conversations included, FL 327).
  await withId(db.schema.createTable("recipients"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("type", "integer", (c) => c.notNull())
    .addColumn("type_id", "integer", (c) => c.notNull())
    .addUniqueConstraint("recipients_type", ["type", "type_id"])
    .execute();

  await withId(db.schema.createTable("direct_groups"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    // Sorted member ids joined by commas: one group per set of users.
    .addColumn("member_key", "text", (c) => c.notNull())
    .addUniqueConstraint("direct_groups_key", ["realm_id", "member_key"])
    .execute();
  await db.schema
    .createTable("direct_group_members")
    .addColumn("group_id", "integer", (c) => c.notNull().references("direct_groups.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addPrimaryKeyConstraint("direct_group_members_pk", ["group_id", "user_id"])
    .execute();
  await db.schema.createIndex("direct_group_members_user").on("direct_group_members").column("user_id").execute();

  await withId(db.schema.createTable("messages"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("recipient_id", "integer", (c) => c.notNull().references("recipients.id"))
    // Denormalised from the recipient for channel messages; null for direct messages.
    .addColumn("stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("topic", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("rendered_content", "text", (c) => c.notNull())
    .addColumn("date_sent", time, (c) => c.notNull())
    .addColumn("sending_client", "text", (c) => c.notNull())
    .addColumn("last_edit_time", time)
    .addColumn("last_moved_time", time)
    // JSON list of edit-history entries, newest first, as the Message object shows them.
    .addColumn("edit_history", "text")
    .addColumn("is_me_message", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("has_link", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("has_image", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("has_attachment", "integer", (c) => c.notNull().defaultTo(0))
    // A channel wildcard mention flags every recipient; derived at read time, not stored per user.
    .addColumn("stream_wildcard_mention", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("messages_recipient").on("messages").columns(["recipient_id", "id"]).execute();
  await db.schema.createIndex("messages_sender").on("messages").columns(["sender_id", "id"]).execute();
  await sql`create index messages_topic on messages (stream_id, lower(topic), id)`.execute(db);

  // Flags that differ from the default: a recipient's default is 0 (unread, nothing else); the
  // sender's default is read. Mentions and topic-wildcard mentions are written at send time
  // for the few users they name; read/starred/... rows as users change them.
  await db.schema
    .createTable("user_message_flags")
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id"))
    .addColumn("flags", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("user_message_flags_pk", ["user_id", "message_id"])
    .execute();
  await db.schema.createIndex("user_message_flags_message").on("user_message_flags").column("message_id").execute();

  // A user received a channel message when a period of their subscription covers its id:
  // first_message_id <= id and (last_message_id is null or id <= last_message_id).
  await withId(db.schema.createTable("subscription_periods"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("first_message_id", "integer", (c) => c.notNull())
    .addColumn("last_message_id", "integer")
    .execute();
  await db.schema.createIndex("subscription_periods_stream").on("subscription_periods").columns(["stream_id", "user_id"]).execute();
  await db.schema.createIndex("subscription_periods_user").on("subscription_periods").columns(["user_id", "stream_id"]).execute();

  // Per-user topic visibility (muted, unmuted, followed), Zulip's user_topic.
  await withId(db.schema.createTable("user_topics"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("topic", "text", (c) => c.notNull())
    .addColumn("visibility_policy", "integer", (c) => c.notNull())
    .addColumn("last_updated", time, (c) => c.notNull())
    .execute();
  await sql`create unique index user_topics_unique on user_topics (user_id, stream_id, lower(topic))`.execute(db);

  await withId(db.schema.createTable("reactions"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("emoji_name", "text", (c) => c.notNull())
    .addColumn("emoji_code", "text", (c) => c.notNull())
    .addColumn("reaction_type", "text", (c) => c.notNull())
    .addUniqueConstraint("reactions_unique", ["message_id", "user_id", "reaction_type", "emoji_code"])
    .execute();

  await withId(db.schema.createTable("submessages"), engine)
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("msg_type", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("submessages_message").on("submessages").column("message_id").execute();

  // Full-text search: an FTS5 table on SQLite, a tsvector column with a GIN index on PostgreSQL.
  if (engine === "sqlite") {
    await sql`create virtual table message_search using fts5(topic, content, tokenize = 'unicode61')`.execute(db);
  } else {
    await sql`alter table messages add column search_tsv tsvector`.execute(db);
    await sql`create index messages_search on messages using gin (search_tsv)`.execute(db);
  }
}

/** The message tables of issue 3. */
export function messagesMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

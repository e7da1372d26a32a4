/**
 * The two hottest reads. A channel's receivers on every channel send: subscriptions carry their
 * user's is_active (as Zulip's Subscription.is_user_active does), so a covering index already in
 * user order answers without touching users or sorting. A channel narrow's newest messages: in id
 * order within the channel, so no sort over the whole channel.
 */
import { sql, type Kysely, type Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("subscriptions").addColumn("is_user_active", "integer", (c) => c.notNull().defaultTo(1)).execute();
  await sql`update subscriptions set is_user_active = (select u.is_active from users u where u.id = subscriptions.user_id)`.execute(db);
  await db.schema.dropIndex("subscriptions_stream").execute();
  await db.schema
    .createIndex("subscriptions_stream_receivers")
    .on("subscriptions")
    .columns(["stream_id", "active", "is_user_active", "user_id", "realm_id"])
    .execute();
  await db.schema.createIndex("messages_stream").on("messages").columns(["stream_id", "id"]).execute();
}

/** Migration 0006: subscriptions.is_user_active and the two read indexes. */
export function readIndexesMigration(): Migration {
  return { up };
}

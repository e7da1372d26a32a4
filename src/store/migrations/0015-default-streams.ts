/**
 * Default channels (Zulip's DefaultStream): the channels new users join; and channel email
 * addresses' tokens (Zulip's ChannelEmailAddress), one per channel, requester and sender.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { withId } from "./helpers.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("default_streams"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addUniqueConstraint("default_streams_realm_stream", ["realm_id", "stream_id"])
    .execute();
  await withId(db.schema.createTable("stream_email_addresses"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("creator_id", "integer", (c) => c.notNull().references("users.id"))
    // 0: the email gateway (upstream's Email Gateway bot, which Parley does not have).
    .addColumn("sender_id", "integer", (c) => c.notNull())
    .addColumn("email_token", "text", (c) => c.notNull().unique())
    .addUniqueConstraint("stream_email_addresses_key", ["stream_id", "creator_id", "sender_id"])
    .execute();
}

/** Migration 0015: the default_streams and stream_email_addresses tables. */
export function defaultStreamsMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

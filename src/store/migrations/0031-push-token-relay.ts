/**
 * Push tokens kept without a relay (issue 37): the app registers its token at every login, on
 * every server, so tokens are stored whether or not a relay is configured. Each token records
 * which relay its registration was queued for (`relay_id`, a digest of the relay's URL and this
 * server's id there; null: none yet), so that a server started with a relay registers the tokens
 * that relay has not been given, and only those (actions/push/tokens.ts). Tokens stored before
 * this migration have none: a relay configured now registers them once more, which the relay
 * takes as a repeat.
 *
 * What a send with a relay configured reads to record its notification facts is kept by the read
 * cache (store/push/push-notifications.ts): the realm's users who have a phone, so push_device_tokens
 * notifies its commits on PostgreSQL; and a topic's visibility policies, read on a miss through
 * a new index of user_topics by channel and topic (the unique one leads with the user).
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { createNotifyTriggers } from "./0024-table-notify.ts";

/** The tables this migration watches; test/store/read-cache.test.ts counts them with the others. */
export const PUSH_NOTIFYING_TABLES = ["push_device_tokens"] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema.alterTable("push_device_tokens").addColumn("relay_id", "text").execute();
  await sql`create index user_topics_topic on user_topics (stream_id, lower(topic))`.execute(db);
  if (engine === "postgres") await createNotifyTriggers(db, PUSH_NOTIFYING_TABLES);
}

/** Migration 0031: push_device_tokens.relay_id and its commit notifications; user_topics by channel and topic. */
export function pushTokenRelayMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

/**
 * Push tokens kept without a relay (issue 37): the app registers its token at every login, on
 * every server, so tokens are stored whether or not a relay is configured. Each token records
 * which relay its registration was queued for (`relay_id`, a digest of the relay's URL and this
 * server's id there; null: none yet), so that a server started with a relay registers the tokens
 * that relay has not been given, and only those (actions/push/tokens.ts). Tokens stored before
 * this migration have none: a relay configured now registers them once more, which the relay
 * takes as a repeat.
 *
 * PostgreSQL: push_device_tokens notifies its commits, as the read cache now keeps the set of a
 * realm's users who have a phone (store/push-notifications.ts), which every send consults when a
 * relay is configured.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../types.ts";
import { createNotifyTriggers } from "./0024-table-notify.ts";

/** The tables this migration watches; test/store/read-cache.test.ts counts them with the others. */
export const PUSH_NOTIFYING_TABLES = ["push_device_tokens"] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema.alterTable("push_device_tokens").addColumn("relay_id", "text").execute();
  if (engine === "postgres") await createNotifyTriggers(db, PUSH_NOTIFYING_TABLES);
}

/** Migration 0031: push_device_tokens.relay_id, and its commit notifications. */
export function pushTokenRelayMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

/**
 * Mobile push (issue 13): the stable UUIDs the push relay knows organizations and users by
 * (Zulip's Realm.uuid and UserProfile.uuid, given to every existing row here and to new rows by
 * store/realm/realms.ts and store/users/users.ts), the users' registered device tokens (Zulip's PushDeviceToken)
 * and end-to-end encrypted registrations (Zulip's PushDevice), and the relay calls waiting to be
 * made (registrations and removals, retried off the request path).
 */
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

async function backfill(db: Kysely<unknown>, table: "realms" | "users"): Promise<void> {
  const { rows } = await sql<{ id: number }>`select id from ${sql.table(table)}`.execute(db);
  for (const row of rows) await sql`update ${sql.table(table)} set uuid = ${randomUUID()} where id = ${row.id}`.execute(db);
}

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  for (const table of ["realms", "users"] as const) {
    await db.schema.alterTable(table).addColumn("uuid", "text").execute();
    await backfill(db, table);
  }
  await withId(db.schema.createTable("push_device_tokens"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    // Zulip's PushDeviceToken.kind: 1 APNs, 2 FCM.
    .addColumn("kind", "integer", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .addColumn("ios_app_id", "text")
    .addColumn("date_created", timeType(engine), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("push_device_tokens_user").on("push_device_tokens").columns(["user_id", "kind", "token"]).unique().execute();
  // Zulip's PushDevice (FL 406): an end-to-end encrypted registration, pending until the relay
  // gives it a device id, or failed with the relay's error code.
  await withId(db.schema.createTable("push_devices"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("token_kind", "text", (c) => c.notNull())
    // A client's random 64-bit integer, kept as its decimal text (exact beyond 2^53).
    .addColumn("push_account_id", "text", (c) => c.notNull())
    .addColumn("push_public_key", "text", (c) => c.notNull())
    .addColumn("bouncer_device_id", "text")
    .addColumn("error_code", "text")
    .execute();
  await db.schema.createIndex("push_devices_user_account").on("push_devices").columns(["user_id", "push_account_id"]).unique().execute();
  await withId(db.schema.createTable("push_relay_jobs"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    // The user the call is for, when its outcome is theirs to hear (E2EE registrations).
    .addColumn("user_id", "integer")
    // "register", "unregister" (remotes/push/...) or "e2ee/register" (remotes/push/e2ee/register).
    .addColumn("call", "text", (c) => c.notNull())
    // The form fields, as a JSON object.
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("failed_tries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("due_at_ms", timeType(engine), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("push_relay_jobs_due").on("push_relay_jobs").columns(["due_at_ms"]).execute();
}

/** Migration 0020: realm and user UUIDs, push_device_tokens, push_devices, push_relay_jobs. */
export function pushMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}

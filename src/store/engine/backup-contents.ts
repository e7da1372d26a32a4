/**
 * What a database snapshot holds, read inside it (the copy of a SQLite file, or the transaction
 * whose snapshot pg_dump reads): the schema's migrations, a few counts for the backup's manifest,
 * and the stored files its rows name, so the backup takes exactly those.
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../schema/database.ts";

/** What a snapshot holds; `files` are paths under UPLOADS_DIR (`files/<path_id>`, `emoji/<realm id>/<file name>`, `avatars/<realm id>/<user id>.png`). */
export type SnapshotContents = {
  /** The migrations applied, in order (Kysely's table). */
  migrations: string[];
  counts: { realms: number; users: number; messages: number; last_message_id: number | null; uploads: number; custom_emoji: number };
  files: string[];
};

/** Reads a snapshot's contents on `db` (a connection inside the snapshot). */
export async function readSnapshotContents(db: Kysely<Database>): Promise<SnapshotContents> {
  const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  const count = async (table: "realms" | "users" | "messages") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  const last = await db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst();
  const uploads = await db.selectFrom("attachments").select("path_id").orderBy("id").execute();
  // An emoji row's file name is set in the transaction that inserts it: "" is never committed, but costs nothing to skip.
  const emoji = await db.selectFrom("realm_emoji").select(["realm_id", "file_name"]).where("file_name", "!=", "").orderBy("id").execute();
  // Uploaded avatars (avatar_source "U") are stored by user id (actions/users/avatars.ts).
  const avatars = await db.selectFrom("users").select(["realm_id", "id"]).where("avatar_source", "=", "U").orderBy("id").execute();
  return {
    migrations: migrations.rows.map((r) => r.name),
    counts: {
      realms: await count("realms"),
      users: await count("users"),
      messages: await count("messages"),
      last_message_id: last?.id === null || last?.id === undefined ? null : Number(last.id),
      uploads: uploads.length,
      custom_emoji: emoji.length,
    },
    files: [
      ...uploads.map((u) => `files/${u.path_id}`),
      ...emoji.map((e) => `emoji/${e.realm_id}/${e.file_name}`),
      ...avatars.map((a) => `avatars/${a.realm_id}/${a.id}.png`),
    ],
  };
}

/** Queries on streams (channels). Names compare case-insensitively, as Zulip's do. */
import { sql, type Updateable } from "kysely";
import type { Db } from "../schema/types.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { type NewStream, type StreamRow, type StreamTable } from "../schema/database.ts";
import { cachedRead, cachedRowsById, copiesByIds } from "../engine/read-cache.ts";
import { collectChunks, valueChunks } from "../engine/chunks.ts";
import { insertStreamRecipient } from "../messages/messages.ts";

const streamByIdQuery = prepared("streamById", (db, param: Placeholders<{ realmId: number; streamId: number }>) =>
  db.selectFrom("streams").selectAll().where("realm_id", "=", param("realmId")).where("id", "=", param("streamId")),
);

/** A stream by id within a realm, archived or not. */
export const getStreamById = cachedRead(
  "stream",
  ["streams"],
  (realmId: number, streamId: number) => `${realmId}/${streamId}`,
  (row: StreamRow | undefined) => row && { ...row },
  async (db, realmId, streamId) => (await streamByIdQuery(db, { realmId, streamId }))[0],
);

const streamByNameQuery = prepared("streamByName", (db, param: Placeholders<{ realmId: number; name: string }>) =>
  db.selectFrom("streams").selectAll().where("realm_id", "=", param("realmId")).where(sql<string>`lower(name)`, "=", sql<string>`lower(${param("name")})`),
);

/** A stream by name (case-insensitive, surrounding spaces ignored), archived or not. */
export const getStreamByName = cachedRead(
  "streamByName",
  ["streams"],
  (realmId: number, name: string) => `${realmId}/${name}`,
  (row: StreamRow | undefined) => row && { ...row },
  async (db, realmId, name) => (await streamByNameQuery(db, { realmId, name: name.trim() }))[0],
);

/**
 * Every stream of a realm by id, in id order, archived ones too, kept while the streams table is
 * unwritten. Shared by all callers: the functions below hand out copies of the rows.
 */
const realmStreamsById = cachedRowsById("realm streams by id", "streams", (db, realmId) => db.selectFrom("streams").selectAll().where("realm_id", "=", realmId).orderBy("id").execute());

/** Every stream of a realm, by id; archived ones only when asked. */
export async function listStreams(db: Db, realmId: number, opts: { includeArchived: boolean }): Promise<StreamRow[]> {
  const out: StreamRow[] = [];
  for (const row of (await realmStreamsById(db, realmId)).values()) if (opts.includeArchived || row.is_archived === 0) out.push({ ...row });
  return out;
}

/** Streams of a realm with the given ids, ascending; unknown ids are skipped. */
export async function getStreamsByIds(db: Db, realmId: number, ids: number[]): Promise<StreamRow[]> {
  return copiesByIds(await realmStreamsById(db, realmId), ids);
}

/** Streams of a realm with any of the given exact names. */
export function streamsByNames(db: Db, realmId: number, names: string[]): Promise<StreamRow[]> {
  return collectChunks(valueChunks(names), (chunk) => db.selectFrom("streams").selectAll().where("realm_id", "=", realmId).where("name", "in", chunk).execute());
}

/** Ids of the realm's public channels (Zulip's `channels:public`) or web-public ones, ascending. */
export async function streamIdsWhere(db: Db, realmId: number, kind: "public" | "web-public"): Promise<number[]> {
  let query = db.selectFrom("streams").select("id").where("realm_id", "=", realmId);
  query = kind === "public" ? query.where("invite_only", "=", 0) : query.where("is_web_public", "=", 1);
  const rows = await query.orderBy("id").execute();
  return rows.map((r) => r.id);
}

/**
 * Inserts a stream and its recipient row, and returns the stream's row; undefined when the realm
 * already has a stream of that name (a concurrent request may have created it after the caller
 * looked).
 */
export async function insertStream(db: Db, row: NewStream): Promise<StreamRow | undefined> {
  const stream = await db
    .insertInto("streams")
    .values(row)
    // The target names the columns of the unique index streams_realm_name.
    .onConflict((oc) => oc.expression(sql`realm_id, lower(name)`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (stream) await insertStreamRecipient(db, stream.realm_id, stream.id);
  return stream;
}

/** Changes columns of a stream and returns the new row. */
export function updateStream(db: Db, realmId: number, streamId: number, patch: Updateable<StreamTable>): Promise<StreamRow> {
  return db.updateTable("streams").set(patch).where("realm_id", "=", realmId).where("id", "=", streamId).returningAll().executeTakeFirstOrThrow();
}

/**
 * Records a sent message as the channel's first unless an older one is: one conditional write,
 * so that concurrent first sends (each having read no first message) leave the oldest id.
 */
export async function lowerFirstMessageId(db: Db, realmId: number, streamId: number, messageId: number): Promise<void> {
  await db
    .updateTable("streams")
    .set({ first_message_id: messageId })
    .where("realm_id", "=", realmId)
    .where("id", "=", streamId)
    .where((eb) => eb.or([eb("first_message_id", "is", null), eb("first_message_id", ">", messageId)]))
    .execute();
}

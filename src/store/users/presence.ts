/** Users' presence rows and the per-realm sequence that numbers their changes (Zulip's UserPresence). */
import { SqliteAdapter, type ExpressionBuilder, type OnConflictDatabase, type OnConflictTables } from "kysely";
import { prepared, type Placeholder, type Placeholders } from "../engine/prepared.ts";
import type { Db } from "../schema/types.ts";
import type { Database, UserRow } from "../schema/database.ts";
import type { UserPresenceRow } from "../schema/presence.ts";

/** A presence row with what presenting it needs of its user. */
export type PresenceWithUser = UserPresenceRow & Pick<UserRow, "delivery_email" | "email_address_visibility" | "date_joined">;

/** Which rows of a realm a presence fetch wants. */
export type PresenceFilter = {
  /** Only rows changed after this sequence number (the client's last_update_id), or all. */
  afterUpdateId: number | null;
  /** Only users connected at or after this time (UNIX seconds), or any time. */
  connectedSince: number | null;
};

// The ping path's queries are prepared (compiled once): a steady ping is a read and, once a minute, a write.
const presenceRowQuery = prepared("userPresence", (db, param: Placeholders<{ realmId: number; userId: number }>) =>
  db.selectFrom("user_presence").selectAll().where("realm_id", "=", param("realmId")).where("user_id", "=", param("userId")),
);

/** A user's presence row, if the user ever reported presence. */
export async function getUserPresence(db: Db, realmId: number, userId: number): Promise<UserPresenceRow | undefined> {
  const [row] = await presenceRowQuery(db, { realmId, userId });
  return row;
}

import type { PresenceWrite } from "./presence-write-behind.ts";

/** Takes the realm's next sequence number (creating the realm's row at 1). */
function nextUpdateId(db: Db, realmId: number | Placeholder<number>) {
  return db
    .insertInto("presence_sequence")
    .values({ realm_id: realmId, last_update_id: 1 })
    .onConflict((oc) => oc.column("realm_id").doUpdateSet((eb) => ({ last_update_id: eb("presence_sequence.last_update_id", "+", 1) })))
    .returning("last_update_id");
}

const nextUpdateIdQuery = prepared("nextPresenceUpdateId", (db, param: Placeholders<{ realmId: number }>) => nextUpdateId(db, param("realmId")));

/** A user's presence row written whole: inserted, or its times and number replaced. */
const upsertPresenceQuery = prepared("upsertPresence", (db, param: Placeholders<UserPresenceRow>) =>
  db
    .insertInto("user_presence")
    .values({
      user_id: param("user_id"),
      realm_id: param("realm_id"),
      last_active_time: param("last_active_time"),
      last_connected_time: param("last_connected_time"),
      last_update_id: param("last_update_id"),
    })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(replaceTimes)),
);

/** The conflict update of a presence write: the new times and sequence number. */
function replaceTimes(eb: ExpressionBuilder<OnConflictDatabase<Database, "user_presence">, OnConflictTables<"user_presence">>) {
  return { last_active_time: eb.ref("excluded.last_active_time"), last_connected_time: eb.ref("excluded.last_connected_time"), last_update_id: eb.ref("excluded.last_update_id") };
}

/** PostgreSQL: the number and the row in one statement (a write in WITH). */
const putPresenceQuery = prepared("putPresenceNumbered", (db, param: Placeholders<PresenceWrite>) =>
  db
    .with("seq", () => nextUpdateId(db, param("realm_id")))
    .insertInto("user_presence")
    .values((eb) => ({
      user_id: param("user_id"),
      realm_id: param("realm_id"),
      last_active_time: param("last_active_time"),
      last_connected_time: param("last_connected_time"),
      last_update_id: eb.selectFrom("seq").select("seq.last_update_id"),
    }))
    .onConflict((oc) => oc.column("user_id").doUpdateSet(replaceTimes))
    .returning("last_update_id"),
);

/**
 * Stores a user's presence under the realm's next sequence number, which it returns. The
 * sequence row's lock (PostgreSQL) is held to the end of the transaction, so numbers become
 * visible in the order they were given out, and a client never skips a row by holding a larger
 * number than one still uncommitted (Zulip's PresenceSequence). PostgreSQL does both in one
 * statement (one round trip on the hot ping path); SQLite, which has no writes in WITH, in two,
 * inside the caller's transaction.
 */
export async function putUserPresence(db: Db, row: PresenceWrite): Promise<number> {
  const { user_id, realm_id, last_active_time, last_connected_time } = row;
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const [{ last_update_id }] = await nextUpdateIdQuery(db, { realmId: realm_id });
    await upsertPresenceQuery(db, { user_id, realm_id, last_active_time, last_connected_time, last_update_id });
    return last_update_id;
  }
  const [written] = await putPresenceQuery(db, { user_id, realm_id, last_active_time, last_connected_time });
  return written.last_update_id;
}

/** Stores several users' presence in the caller's transaction, each under its own next sequence number (presence-write-behind.ts's batch). */
export async function putUserPresences(db: Db, rows: readonly PresenceWrite[]): Promise<void> {
  for (const row of rows) await putUserPresence(db, row);
}

/**
 * Presence rows of the realm's active human users that pass `filter` (Zulip leaves out bots and
 * deactivated users), with the user fields presenting them needs.
 */
export function listRealmPresences(db: Db, realmId: number, filter: PresenceFilter): Promise<PresenceWithUser[]> {
  let query = db
    .selectFrom("user_presence as p")
    .innerJoin("users as u", "u.id", "p.user_id")
    .select(["p.user_id", "p.realm_id", "p.last_active_time", "p.last_connected_time", "p.last_update_id", "u.delivery_email", "u.email_address_visibility", "u.date_joined"])
    .where("p.realm_id", "=", realmId)
    .where("u.is_active", "=", 1)
    .where("u.is_bot", "=", 0);
  if (filter.afterUpdateId !== null) query = query.where("p.last_update_id", ">", filter.afterUpdateId);
  if (filter.connectedSince !== null) query = query.where("p.last_connected_time", ">=", filter.connectedSince);
  return query.orderBy("p.user_id").execute();
}

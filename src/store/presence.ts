/** Users' presence rows and the per-realm sequence that numbers their changes (Zulip's UserPresence). */
import { SqliteAdapter } from "kysely";
import type { Db } from "./types.ts";
import type { UserRow } from "./schema.ts";
import type { UserPresenceRow } from "./schema-presence.ts";

/** A presence row with what presenting it needs of its user. */
export type PresenceWithUser = UserPresenceRow & Pick<UserRow, "delivery_email" | "email_address_visibility" | "date_joined">;

/** Which rows of a realm a presence fetch wants. */
export type PresenceFilter = {
  /** Only rows changed after this sequence number (the client's last_update_id), or all. */
  afterUpdateId: number | null;
  /** Only users connected at or after this time (UNIX seconds), or any time. */
  connectedSince: number | null;
};

/** A user's presence row, if the user ever reported presence. */
export function getUserPresence(db: Db, realmId: number, userId: number): Promise<UserPresenceRow | undefined> {
  return db.selectFrom("user_presence").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).executeTakeFirst();
}

/**
 * Stores a user's presence under the realm's next sequence number, which it returns. The
 * sequence row's lock (PostgreSQL) is held to the end of the transaction, so numbers become
 * visible in the order they were given out, and a client never skips a row by holding a larger
 * number than one still uncommitted (Zulip's PresenceSequence). PostgreSQL does both in one
 * statement (one round trip on the hot ping path); SQLite, which has no writes in WITH, in two,
 * inside the caller's transaction.
 */
export async function putUserPresence(db: Db, row: Omit<UserPresenceRow, "last_update_id">): Promise<number> {
  const { user_id, realm_id, last_active_time, last_connected_time } = row;
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const { last_update_id } = await nextUpdateId(db, realm_id).returning("last_update_id").executeTakeFirstOrThrow();
    await upsertRow(db, { user_id, realm_id, last_active_time, last_connected_time, last_update_id }).execute();
    return last_update_id;
  }
  const written = await db
    .with("seq", () => nextUpdateId(db, realm_id).returning("last_update_id"))
    .insertInto("user_presence")
    .values((eb) => ({ user_id, realm_id, last_active_time, last_connected_time, last_update_id: eb.selectFrom("seq").select("seq.last_update_id") }))
    .onConflict((oc) => oc.column("user_id").doUpdateSet((eb) => ({ last_active_time: eb.ref("excluded.last_active_time"), last_connected_time: eb.ref("excluded.last_connected_time"), last_update_id: eb.ref("excluded.last_update_id") })))
    .returning("last_update_id")
    .executeTakeFirstOrThrow();
  return written.last_update_id;
}

/** Takes the realm's next sequence number (creating the realm's row at 1). */
function nextUpdateId(db: Db, realmId: number) {
  return db
    .insertInto("presence_sequence")
    .values({ realm_id: realmId, last_update_id: 1 })
    .onConflict((oc) => oc.column("realm_id").doUpdateSet((eb) => ({ last_update_id: eb("presence_sequence.last_update_id", "+", 1) })));
}

/** Creates or replaces a user's presence row. */
function upsertRow(db: Db, row: UserPresenceRow) {
  const { last_active_time, last_connected_time, last_update_id } = row;
  return db.insertInto("user_presence").values(row).onConflict((oc) => oc.column("user_id").doUpdateSet({ last_active_time, last_connected_time, last_update_id }));
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

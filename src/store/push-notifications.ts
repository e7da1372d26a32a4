/**
 * What deciding and taking back message notifications reads and writes: the phones of a set of
 * users (legacy tokens and active E2EE registrations), their flag rows and presence for one
 * message, and the notifications a user's phones show (push_active_notifications).
 */
import { collectChunks, eachChunk, idChunks, rowChunks } from "./chunks.ts";
import type { PushDeviceRow, PushDeviceTokenRow } from "./schema-push.ts";
import type { Db } from "./types.ts";

/** A user's phones: legacy tokens and E2EE registrations the relay took. */
export type UserPhones = { tokens: PushDeviceTokenRow[]; devices: PushDeviceRow[] };

/** The phones of those of `userIds` who have any, by user id. */
export async function phonesOfUsers(db: Db, realmId: number, userIds: number[]): Promise<Map<number, UserPhones>> {
  const chunks = idChunks(userIds);
  const [tokens, devices] = await Promise.all([
    collectChunks(chunks, (chunk) => db.selectFrom("push_device_tokens").selectAll().where("realm_id", "=", realmId).where("user_id", "in", chunk).orderBy("id").execute()),
    collectChunks(chunks, (chunk) =>
      db.selectFrom("push_devices").selectAll().where("realm_id", "=", realmId).where("user_id", "in", chunk).where("bouncer_device_id", "is not", null).orderBy("id").execute(),
    ),
  ]);
  const out = new Map<number, UserPhones>();
  const of = (userId: number) => {
    let phones = out.get(userId);
    if (!phones) out.set(userId, (phones = { tokens: [], devices: [] }));
    return phones;
  };
  for (const t of tokens) of(t.user_id).tokens.push(t);
  for (const d of devices) of(d.user_id).devices.push(d);
  return out;
}

/** Stored flag rows of one message for the given users, by user id. */
export async function flagRowsOfUsers(db: Db, messageId: number, userIds: number[]): Promise<Map<number, number>> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db.selectFrom("user_message_flags").select(["user_id", "flags"]).where("message_id", "=", messageId).where("user_id", "in", chunk).execute(),
  );
  return new Map(rows.map((r) => [r.user_id, r.flags]));
}

/** The last "active" presence report (UNIX seconds) of the given users who have one, by user id. */
export async function lastActiveTimes(db: Db, realmId: number, userIds: number[]): Promise<Map<number, number>> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db.selectFrom("user_presence").select(["user_id", "last_active_time"]).where("realm_id", "=", realmId).where("user_id", "in", chunk).execute(),
  );
  return new Map(rows.flatMap((r) => (r.last_active_time === null ? [] : [[r.user_id, r.last_active_time] as [number, number]])));
}

/** Records that these users' phones now show a notification of the message. */
export async function insertActiveNotifications(db: Db, realmId: number, messageId: number, userIds: number[]): Promise<void> {
  const rows = userIds.map((userId) => ({ realm_id: realmId, user_id: userId, message_id: messageId }));
  await eachChunk(rowChunks(rows), (chunk) =>
    db.insertInto("push_active_notifications").values(chunk).onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing()).execute(),
  );
}

/** Those of `userIds` whose phones already show a notification of the message. */
export async function usersNotifiedOf(db: Db, messageId: number, userIds: number[]): Promise<Set<number>> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db.selectFrom("push_active_notifications").select("user_id").where("message_id", "=", messageId).where("user_id", "in", chunk).execute(),
  );
  return new Set(rows.map((r) => r.user_id));
}

/** Takes back a user's notifications of the given messages: the ids of those there were, ascending. */
export async function takeActiveNotifications(db: Db, userId: number, messageIds: number[]): Promise<number[]> {
  const chunks = idChunks(messageIds);
  const held = await collectChunks(chunks, (chunk) =>
    db.selectFrom("push_active_notifications").select("message_id").where("user_id", "=", userId).where("message_id", "in", chunk).orderBy("message_id").execute(),
  );
  if (held.length === 0) return [];
  const ids = held.map((r) => r.message_id);
  await eachChunk(idChunks(ids), (chunk) => db.deleteFrom("push_active_notifications").where("user_id", "=", userId).where("message_id", "in", chunk).execute());
  return ids;
}

/** Takes back every user's notifications of the given messages: the message ids of each user's, ascending. */
export async function takeActiveNotificationsOfMessages(db: Db, realmId: number, messageIds: number[]): Promise<Map<number, number[]>> {
  const chunks = idChunks(messageIds);
  const held = await collectChunks(chunks, (chunk) =>
    db.selectFrom("push_active_notifications").select(["user_id", "message_id"]).where("realm_id", "=", realmId).where("message_id", "in", chunk).orderBy("message_id").execute(),
  );
  if (held.length === 0) return new Map();
  await eachChunk(chunks, (chunk) => db.deleteFrom("push_active_notifications").where("realm_id", "=", realmId).where("message_id", "in", chunk).execute());
  const out = new Map<number, number[]>();
  for (const row of held) {
    const ids = out.get(row.user_id);
    if (ids) ids.push(row.message_id);
    else out.set(row.user_id, [row.message_id]);
  }
  return out;
}

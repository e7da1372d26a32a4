/**
 * What deciding and taking back message notifications reads and writes: who in a realm has a
 * phone, a channel's subscription overrides and a topic's policies (all three kept by the read
 * cache: a send with a relay configured asks them every time), the phones of a set of users
 * (legacy tokens and active E2EE registrations), their flag rows and presence for one message,
 * and the notifications a user's phones show (push_active_notifications).
 */
import { sql } from "kysely";
import { collectChunks, eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";
import { cachedRead, cachedRealmValue } from "../engine/read-cache.ts";
import type { PushDeviceRow, PushDeviceTokenRow } from "../schema/push.ts";
import type { Db } from "../schema/types.ts";

/** A user's phones: legacy tokens and E2EE registrations the relay took. */
export type UserPhones = { tokens: PushDeviceTokenRow[]; devices: PushDeviceRow[] };

/** The realm's users with a phone: a legacy token, or an E2EE registration the relay took. Shared: not to change. */
export const phoneOwnerIds = cachedRealmValue("users with a phone", ["push_device_tokens", "push_devices"], async (db, realmId): Promise<ReadonlySet<number>> => {
  const [tokens, devices] = await Promise.all([
    db.selectFrom("push_device_tokens").select("user_id").distinct().where("realm_id", "=", realmId).execute(),
    db.selectFrom("push_devices").select("user_id").distinct().where("realm_id", "=", realmId).where("bouncer_device_id", "is not", null).execute(),
  ]);
  return new Set([...tokens, ...devices].map((r) => r.user_id));
});

/** A subscription's notification overrides (null: the user's setting) and muting. */
export type NotifyOverrides = { push_notifications: number | null; email_notifications: number | null; wildcard_mentions_notify: number | null; is_muted: number };

/**
 * The channel's active subscriptions that override a push or email notification setting or are
 * muted, by user id (the others follow their users' settings). Kept by the read cache, as the
 * send asks it for every message when a relay or SMTP_URL is configured; shared: not to change.
 */
export const channelNotifyOverrides = cachedRead(
  "notification overrides of a channel",
  ["subscriptions"],
  (realmId: number, streamId: number) => `${realmId}/${streamId}`,
  (value: ReadonlyMap<number, NotifyOverrides>) => value,
  async (db, realmId, streamId): Promise<ReadonlyMap<number, NotifyOverrides>> => {
    const rows = await db
      .selectFrom("subscriptions")
      .select(["user_id", "push_notifications", "email_notifications", "wildcard_mentions_notify", "is_muted"])
      .where("realm_id", "=", realmId)
      .where("stream_id", "=", streamId)
      .where("active", "=", 1)
      .where((eb) =>
        eb.or([eb("push_notifications", "is not", null), eb("email_notifications", "is not", null), eb("wildcard_mentions_notify", "is not", null), eb("is_muted", "=", 1)]),
      )
      .execute();
    return new Map(rows.map(({ user_id, ...overrides }) => [user_id, overrides]));
  },
);

/**
 * Every visibility policy set for one topic of a channel (case-insensitive), by user id, through
 * the index of migration 0031. Kept by the read cache as channelNotifyOverrides; shared: not to change.
 */
export const topicPolicies = cachedRead(
  "policies of a topic",
  ["user_topics"],
  (realmId: number, streamId: number, topic: string) => `${realmId}/${streamId}/${topic.toLowerCase()}`,
  (value: ReadonlyMap<number, number>) => value,
  async (db, realmId, streamId, topic): Promise<ReadonlyMap<number, number>> => {
    const rows = await db
      .selectFrom("user_topics")
      .select(["user_id", "visibility_policy"])
      .where("realm_id", "=", realmId)
      .where("stream_id", "=", streamId)
      .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
      .execute();
    return new Map(rows.map((r) => [r.user_id, r.visibility_policy]));
  },
);

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

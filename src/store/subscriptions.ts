/**
 * Queries on subscriptions and their periods, plus the active-user lookups that channel access
 * and subscribing read. A row is kept when a user unsubscribes (active = 0) so that their
 * color and notification settings come back if they subscribe again, as Zulip does.
 */
import type { Db } from "./types.ts";
import type { Flag, SubscriptionRow, SubscriptionTable, UserRow } from "./schema.ts";
import { sql, type Expression, type Updateable } from "kysely";
import { maxMessageId } from "./messages.ts";
import { idListAgg, parseIdList } from "./dialect/id-list.ts";
import { prepared, type Placeholders } from "./prepared.ts";
import { cachedRead } from "./read-cache.ts";

/** The fields of an active user that channel permission checks need. */
export type RealmMember = Pick<UserRow, "id" | "role" | "is_bot" | "bot_owner_id">;

/** Active users of a realm (bots included), by id. */
export function activeRealmMembers(db: Db, realmId: number): Promise<RealmMember[]> {
  return db.selectFrom("users").select(["id", "role", "is_bot", "bot_owner_id"]).where("realm_id", "=", realmId).where("is_active", "=", 1).orderBy("id").execute();
}

/** Active users of a realm with the given ids (unknown or deactivated ids are left out). */
export async function activeUsersByIds(db: Db, realmId: number, ids: number[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_active", "=", 1).where("id", "in", ids).execute();
}

/** Active users of a realm with the given delivery emails (case-insensitive). */
export async function activeUsersByEmails(db: Db, realmId: number, emails: string[]): Promise<UserRow[]> {
  if (emails.length === 0) return [];
  const lowered = emails.map((e) => e.toLowerCase());
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_active", "=", 1).where(sql<string>`lower(delivery_email)`, "in", lowered).execute();
}

const subscriptionQuery = prepared("subscription", (db, param: Placeholders<{ realmId: number; userId: number; streamId: number }>) =>
  db
    .selectFrom("subscriptions")
    .selectAll()
    .where("realm_id", "=", param("realmId"))
    .where("user_id", "=", param("userId"))
    .where("stream_id", "=", param("streamId")),
);

/** One user's subscription row to a stream (active or not). */
export const getSubscription = cachedRead(
  "subscription",
  ["subscriptions"],
  (realmId: number, userId: number, streamId: number) => `${realmId}/${userId}/${streamId}`,
  (row: SubscriptionRow | undefined) => row && { ...row },
  async (db, realmId, userId, streamId) => (await subscriptionQuery(db, { realmId, userId, streamId }))[0],
);

/** Every subscription row (active or not) of a user. */
export function userSubscriptionRows(db: Db, realmId: number, userId: number): Promise<SubscriptionRow[]> {
  return db.selectFrom("subscriptions").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("stream_id").execute();
}

/** The subscriptions of a realm that receive their channel's messages: active, of active users. */
export function receivingSubscriptions(db: Db, realmId: number | Expression<number>) {
  return db.selectFrom("subscriptions").where("realm_id", "=", realmId).where("active", "=", 1).where("is_user_active", "=", 1);
}

/** Active subscribers (active users only) of each given stream, ascending ids. */
export async function subscriberIdsByStream(db: Db, realmId: number, streamIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  if (streamIds.length === 0) return out;
  const rows = await receivingSubscriptions(db, realmId)
    .select(["stream_id", idListAgg(db, "user_id").as("user_ids")])
    .where("stream_id", "in", streamIds)
    .groupBy("stream_id")
    .execute();
  for (const row of rows) out.set(row.stream_id, parseIdList(row.user_ids));
  return out;
}

const subscriberIdsQuery = prepared("subscriberIds", (db, param: Placeholders<{ realmId: number; streamId: number }>) =>
  receivingSubscriptions(db, param("realmId")).select(idListAgg(db, "user_id").as("user_ids")).where("stream_id", "=", param("streamId")),
);

/** Active subscribers (active users only) of one stream, ascending ids. */
export const subscriberIds = cachedRead(
  "subscriber ids",
  ["subscriptions"],
  (realmId: number, streamId: number) => `${realmId}/${streamId}`,
  (ids: number[]) => ids.slice(),
  async (db, realmId, streamId) => {
    const [row] = await subscriberIdsQuery(db, { realmId, streamId });
    return parseIdList(row?.user_ids ?? null);
  },
);

/** The streams a user is actively subscribed to, as a query to narrow further. */
function activeSubscriptionStreams(db: Db, realmId: number, userId: number) {
  return db.selectFrom("subscriptions").select("stream_id").where("realm_id", "=", realmId).where("user_id", "=", userId).where("active", "=", 1);
}

/** Ids of the streams a user is actively subscribed to. */
export async function subscribedStreamIds(db: Db, realmId: number, userId: number): Promise<Set<number>> {
  const rows = await activeSubscriptionStreams(db, realmId, userId).execute();
  return new Set(rows.map((r) => r.stream_id));
}

/** Users with a subscription row to a channel: every row (past subscribers too), or active ones only. */
export async function streamSubscriptionUserIds(db: Db, streamId: number, activeOnly: boolean): Promise<Set<number>> {
  let q = db.selectFrom("subscriptions").select("user_id").where("stream_id", "=", streamId);
  if (activeOnly) q = q.where("active", "=", 1);
  return new Set((await q.execute()).map((r) => r.user_id));
}

/** A span of a channel's message ids a user received (open-ended while subscribed). */
export type SubscriptionPeriod = { user_id: number; first_message_id: number; last_message_id: number | null };

/** A channel's subscription periods that overlap the id range of the given (non-empty) messages. */
export function periodsOverlapping(db: Db, streamId: number, messageIds: number[]): Promise<SubscriptionPeriod[]> {
  return db
    .selectFrom("subscription_periods")
    .select(["user_id", "first_message_id", "last_message_id"])
    .where("stream_id", "=", streamId)
    .where("first_message_id", "<=", Math.max(...messageIds))
    .where((eb) => eb.or([eb("last_message_id", "is", null), eb("last_message_id", ">=", Math.min(...messageIds))]))
    .execute();
}

/** Ids of the streams a user is actively subscribed to and has muted. */
export async function mutedStreamIds(db: Db, realmId: number, userId: number): Promise<number[]> {
  const rows = await activeSubscriptionStreams(db, realmId, userId).where("is_muted", "=", 1).execute();
  return rows.map((r) => r.stream_id);
}

/**
 * Opens a subscription period (the user receives messages from the next one on) or closes the
 * open one (they received messages up to the current newest). See store/message-flags.ts.
 */
async function recordActiveChange(db: Db, realmId: number, userId: number, streamId: number, active: boolean): Promise<void> {
  const max = await maxMessageId(db);
  if (active) {
    await db.insertInto("subscription_periods").values({ realm_id: realmId, user_id: userId, stream_id: streamId, first_message_id: max + 1, last_message_id: null }).execute();
    return;
  }
  await closeOpenPeriods(db, realmId, [userId], streamId, max);
}

/** Closes the open periods of users (on one stream, or on all): they received up to `lastId`. */
async function closeOpenPeriods(db: Db, realmId: number, userIds: number[], streamId: number | null, lastId: number): Promise<void> {
  await db
    .updateTable("subscription_periods")
    .set({ last_message_id: lastId })
    .where("realm_id", "=", realmId)
    .where("user_id", "in", userIds)
    .$if(streamId !== null, (q) => q.where("stream_id", "=", streamId as number))
    .where("last_message_id", "is", null)
    .execute();
}

/**
 * Follows users' (de)activation on their subscriptions: the copy of is_active, and their periods.
 * A deactivated user receives nothing (Zulip gives them no UserMessage rows), so deactivation
 * closes their open periods and reactivation opens new ones for their active subscriptions.
 */
export async function setSubscribersActive(db: Db, realmId: number, userIds: number[], active: boolean): Promise<void> {
  if (userIds.length === 0) return;
  await db.updateTable("subscriptions").set({ is_user_active: active ? 1 : 0 }).where("realm_id", "=", realmId).where("user_id", "in", userIds).execute();
  const max = await maxMessageId(db);
  if (!active) {
    await closeOpenPeriods(db, realmId, userIds, null, max);
    return;
  }
  await db
    .insertInto("subscription_periods")
    .columns(["realm_id", "user_id", "stream_id", "first_message_id", "last_message_id"])
    .expression((eb) =>
      eb
        .selectFrom("subscriptions")
        .select(["subscriptions.realm_id", "subscriptions.user_id", "subscriptions.stream_id", sql<number>`cast(${max + 1} as integer)`.as("first_message_id"), sql<null>`cast(null as integer)`.as("last_message_id")])
        .where("subscriptions.realm_id", "=", realmId)
        .where("subscriptions.user_id", "in", userIds)
        .where("subscriptions.active", "=", 1),
    )
    .execute();
}

/** Inserts an active subscription with default personal settings (and opens its period). */
export async function insertSubscription(db: Db, realmId: number, userId: number, streamId: number, color: string): Promise<SubscriptionRow> {
  const row = await db
    .insertInto("subscriptions")
    .values({
      realm_id: realmId,
      user_id: userId,
      stream_id: streamId,
      active: 1,
      is_muted: 0,
      color,
      pin_to_top: 0,
      is_user_active: sql<Flag>`(select u.is_active from users u where u.id = ${userId})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordActiveChange(db, realmId, userId, streamId, true);
  return row;
}

/** Changes columns of one subscription row and returns it; a change of `active` opens or closes a period. */
export async function updateSubscription(db: Db, realmId: number, subscriptionId: number, patch: Updateable<SubscriptionTable>): Promise<SubscriptionRow> {
  const before = patch.active === undefined ? undefined : await db.selectFrom("subscriptions").select("active").where("realm_id", "=", realmId).where("id", "=", subscriptionId).executeTakeFirst();
  const row = await db
    .updateTable("subscriptions")
    .set(patch)
    .where("realm_id", "=", realmId)
    .where("id", "=", subscriptionId)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (before && before.active !== row.active) await recordActiveChange(db, realmId, row.user_id, row.stream_id, row.active === 1);
  return row;
}

/**
 * Queries on subscriptions and their periods, plus the active-user lookups that channel access
 * and subscribing read. A row is kept when a user unsubscribes (active = 0) so that their
 * color and notification settings come back if they subscribe again, as Zulip does.
 */
import type { Db } from "../schema/types.ts";
import type { Flag, SubscriptionRow, SubscriptionTable, UserRow } from "../schema/database.ts";
import { sql, type Expression, type Updateable } from "kysely";
import { maxMessageId } from "../messages/messages.ts";
import { idListAgg, parseIdList } from "../engine/id-list.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { cachedRead, copyRows } from "../engine/read-cache.ts";
import { collectChunks, eachChunk, idChunks, rowChunks, valueChunks } from "../engine/chunks.ts";

/** The fields of an active user that channel permission checks need. */
export type RealmMember = Pick<UserRow, "id" | "role" | "is_bot" | "bot_owner_id">;

/** Active users of a realm (bots included), by id. */
export function activeRealmMembers(db: Db, realmId: number): Promise<RealmMember[]> {
  return db.selectFrom("users").select(["id", "role", "is_bot", "bot_owner_id"]).where("realm_id", "=", realmId).where("is_active", "=", 1).orderBy("id").execute();
}

/** Active users of a realm with the given ids (unknown or deactivated ids are left out). */
export async function activeUsersByIds(db: Db, realmId: number, ids: number[]): Promise<UserRow[]> {
  return collectChunks(idChunks(ids), (chunk) => db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_active", "=", 1).where("id", "in", chunk).execute());
}

/** Active users of a realm with the given delivery emails (case-insensitive). */
export async function activeUsersByEmails(db: Db, realmId: number, emails: string[]): Promise<UserRow[]> {
  return collectChunks(valueChunks(emails.map((e) => e.toLowerCase())), (chunk) =>
    db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_active", "=", 1).where(sql<string>`lower(delivery_email)`, "in", chunk).execute(),
  );
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

/** Subscription rows (active or not) of the given users to one stream, by user id. */
export async function subscriptionsOfUsers(db: Db, realmId: number, streamId: number, userIds: number[]): Promise<Map<number, SubscriptionRow>> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db.selectFrom("subscriptions").selectAll().where("realm_id", "=", realmId).where("stream_id", "=", streamId).where("user_id", "in", chunk).execute(),
  );
  return new Map(rows.map((r) => [r.user_id, r]));
}

/** The colors of the given users' subscription rows (active or not), by user id. */
export async function subscriptionColorsByUser(db: Db, realmId: number, userIds: number[]): Promise<Map<number, Set<string>>> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db.selectFrom("subscriptions").select(["user_id", "color"]).where("realm_id", "=", realmId).where("user_id", "in", chunk).execute(),
  );
  const out = new Map<number, Set<string>>(userIds.map((id) => [id, new Set()]));
  for (const row of rows) out.get(row.user_id)?.add(row.color);
  return out;
}

/** Every subscription row (active or not) of a user, by channel id. */
export const userSubscriptionRows = cachedRead(
  "subscriptions of a user",
  ["subscriptions"],
  (realmId: number, userId: number) => `${realmId}/${userId}`,
  copyRows<SubscriptionRow>,
  (db, realmId, userId) => db.selectFrom("subscriptions").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("stream_id").execute(),
);

/** The subscriptions of a realm that receive their channel's messages: active, of active users. */
export function receivingSubscriptions(db: Db, realmId: number | Expression<number>) {
  return db.selectFrom("subscriptions").where("realm_id", "=", realmId).where("active", "=", 1).where("is_user_active", "=", 1);
}

/** Active subscribers (active users only) of each given stream, ascending ids. */
export async function subscriberIdsByStream(db: Db, realmId: number, streamIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  const rows = await collectChunks(idChunks(streamIds), (chunk) =>
    receivingSubscriptions(db, realmId)
      .select(["stream_id", idListAgg(db, "user_id").as("user_ids")])
      .where("stream_id", "in", chunk)
      .groupBy("stream_id")
      .execute(),
  );
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
  // A loop, not Math.max(...ids): spreading a long list overflows the call stack.
  const first = messageIds.reduce((a, b) => Math.min(a, b), Infinity);
  const last = messageIds.reduce((a, b) => Math.max(a, b), -Infinity);
  return db
    .selectFrom("subscription_periods")
    .select(["user_id", "first_message_id", "last_message_id"])
    .where("stream_id", "=", streamId)
    .where("first_message_id", "<=", last)
    .where((eb) => eb.or([eb("last_message_id", "is", null), eb("last_message_id", ">=", first)]))
    .execute();
}

/** Ids of the streams a user is actively subscribed to and has muted. */
export async function mutedStreamIds(db: Db, realmId: number, userId: number): Promise<number[]> {
  const rows = await userSubscriptionRows(db, realmId, userId);
  return rows.filter((r) => r.active === 1 && r.is_muted === 1).map((r) => r.stream_id);
}

/** Closes the open periods of users (on one stream, or on all): they received up to `lastId`. */
async function closeOpenPeriods(db: Db, realmId: number, userIds: number[], streamId: number | null, lastId: number): Promise<void> {
  await eachChunk(idChunks(userIds), (chunk) =>
    db
      .updateTable("subscription_periods")
      .set({ last_message_id: lastId })
      .where("realm_id", "=", realmId)
      .where("user_id", "in", chunk)
      .$if(streamId !== null, (q) => q.where("stream_id", "=", streamId as number))
      .where("last_message_id", "is", null)
      .execute(),
  );
}

/**
 * Follows users' (de)activation on their subscriptions: the copy of is_active, and their periods.
 * A deactivated user receives nothing (Zulip gives them no UserMessage rows), so deactivation
 * closes their open periods and reactivation opens new ones for their active subscriptions.
 */
export async function setSubscribersActive(db: Db, realmId: number, userIds: number[], active: boolean): Promise<void> {
  if (userIds.length === 0) return;
  const chunks = idChunks(userIds);
  await eachChunk(chunks, (chunk) => db.updateTable("subscriptions").set({ is_user_active: active ? 1 : 0 }).where("realm_id", "=", realmId).where("user_id", "in", chunk).execute());
  const max = await maxMessageId(db);
  if (!active) {
    await closeOpenPeriods(db, realmId, userIds, null, max);
    return;
  }
  await eachChunk(chunks, (chunk) =>
    db
      .insertInto("subscription_periods")
      .columns(["realm_id", "user_id", "stream_id", "first_message_id", "last_message_id"])
      .expression((eb) =>
        eb
          .selectFrom("subscriptions")
          .select(["subscriptions.realm_id", "subscriptions.user_id", "subscriptions.stream_id", sql<number>`cast(${max + 1} as integer)`.as("first_message_id"), sql<null>`cast(null as integer)`.as("last_message_id")])
          .where("subscriptions.realm_id", "=", realmId)
          .where("subscriptions.user_id", "in", chunk)
          .where("subscriptions.active", "=", 1),
      )
      .execute(),
  );
}

/** The columns a new subscription takes: active, default personal settings, the user's is_active. */
function newSubscription(realmId: number, userId: number, streamId: number, color: string) {
  return {
    realm_id: realmId,
    user_id: userId,
    stream_id: streamId,
    active: 1 as const,
    is_muted: 0 as const,
    color,
    pin_to_top: 0 as const,
    is_user_active: sql<Flag>`(select u.is_active from users u where u.id = ${userId})`,
  };
}

/** Opens a subscription period per row: each user receives the stream's messages from the next one on. */
async function openPeriods(db: Db, realmId: number, rows: ReadonlyArray<Pick<SubscriptionRow, "user_id" | "stream_id">>): Promise<void> {
  if (rows.length === 0) return;
  const first = (await maxMessageId(db)) + 1;
  const periods = rows.map((r) => ({ realm_id: realmId, user_id: r.user_id, stream_id: r.stream_id, first_message_id: first, last_message_id: null }));
  await eachChunk(rowChunks(periods), (chunk) => db.insertInto("subscription_periods").values(chunk).execute());
}

/**
 * Subscribes users (`colors`: each one's color) to one stream with new rows and opens their
 * periods; users who already have a row (made by a concurrent request after the caller looked)
 * are skipped. Returns the rows inserted.
 */
export async function insertSubscriptions(db: Db, realmId: number, streamId: number, colors: ReadonlyMap<number, string>): Promise<SubscriptionRow[]> {
  // In key order, so two requests writing overlapping rows lock them in the same order (no deadlock).
  const values = [...colors].sort((a, b) => a[0] - b[0]).map(([userId, color]) => newSubscription(realmId, userId, streamId, color));
  const rows = await collectChunks(rowChunks(values), (chunk) =>
    db
      .insertInto("subscriptions")
      .values(chunk)
      .onConflict((oc) => oc.columns(["user_id", "stream_id"]).doNothing())
      .returningAll()
      .execute(),
  );
  await openPeriods(db, realmId, rows);
  return rows;
}

/**
 * Sets `active` (with `patch`'s other columns) on subscription rows and opens or closes their
 * periods; rows that already had that value are left alone, so of concurrent requests making the
 * same change, one makes it (PostgreSQL checks the old value again under the row's lock).
 * Returns the rows changed.
 */
export async function setSubscriptionsActive(db: Db, realmId: number, ids: number[], active: Flag, patch: Updateable<SubscriptionTable> = {}): Promise<SubscriptionRow[]> {
  const rows = await collectChunks(idChunks(ids), (chunk) =>
    db.updateTable("subscriptions").set({ ...patch, active }).where("realm_id", "=", realmId).where("id", "in", chunk).where("active", "!=", active).returningAll().execute(),
  );
  if (active === 1) {
    await openPeriods(db, realmId, rows);
    return rows;
  }
  const max = await maxMessageId(db);
  const usersByStream = new Map<number, number[]>();
  for (const row of rows) {
    const users = usersByStream.get(row.stream_id);
    if (users) users.push(row.user_id);
    else usersByStream.set(row.stream_id, [row.user_id]);
  }
  for (const [streamId, userIds] of usersByStream) await closeOpenPeriods(db, realmId, userIds, streamId, max);
  return rows;
}

/** Sets one subscription's `active` as setSubscriptionsActive does; undefined when it already had that value. */
export async function setSubscriptionActive(db: Db, realmId: number, subscriptionId: number, active: Flag, patch: Updateable<SubscriptionTable> = {}): Promise<SubscriptionRow | undefined> {
  const [row] = await setSubscriptionsActive(db, realmId, [subscriptionId], active, patch);
  return row;
}

/** Changes columns of one subscription row and returns it; a change of `active` opens or closes a period. */
export async function updateSubscription(db: Db, realmId: number, subscriptionId: number, patch: Updateable<SubscriptionTable>): Promise<SubscriptionRow> {
  const { active, ...rest } = patch;
  if (active !== undefined) {
    const changed = await setSubscriptionActive(db, realmId, subscriptionId, active, rest);
    if (changed) return changed;
  }
  const update = db.updateTable("subscriptions").where("realm_id", "=", realmId).where("id", "=", subscriptionId);
  if (Object.keys(rest).length > 0) return update.set(rest).returningAll().executeTakeFirstOrThrow();
  return db.selectFrom("subscriptions").selectAll().where("realm_id", "=", realmId).where("id", "=", subscriptionId).executeTakeFirstOrThrow();
}

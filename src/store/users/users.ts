/** Queries on users and bots (and bots' outgoing-webhook services), always within one realm. */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { ROLE } from "../../model/roles.ts";
import type { Db } from "../schema/types.ts";
import type { NewUser, ServiceRow, UserRow, UserUpdate } from "../schema/database.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import { setSubscribersActive } from "../channels/subscriptions.ts";
import { cachedRead, cachedRowsById, copiesByIds, copyRows } from "../engine/read-cache.ts";
import { collectChunks, eachChunk, idChunks, valueChunks } from "../engine/chunks.ts";

/** A user or bot by id, active or not. */
export function getUser(db: Db, realmId: number, userId: number): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("id", "=", userId).executeTakeFirst();
}

/** A user or bot by delivery email, compared case-insensitively. */
export function getUserByDeliveryEmail(db: Db, realmId: number, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(sql<string>`lower(delivery_email)`, "=", email.trim().toLowerCase())
    .executeTakeFirst();
}

/**
 * Every user and bot of a realm by id, in id order, kept while the users table is unwritten
 * (every register lists them, every message list looks up its senders). Shared by all callers:
 * the functions below hand out copies of the rows.
 */
/** The realm's users by id, shared by every caller: not to change (usersByIds hands out copies). */
export const realmUsersById = cachedRowsById("realm users by id", "users", (db, realmId) => db.selectFrom("users").selectAll().where("realm_id", "=", realmId).orderBy("id").execute());

/** Every user and bot of the realm, by id. */
export async function listUsers(db: Db, realmId: number): Promise<UserRow[]> {
  return Array.from((await realmUsersById(db, realmId)).values(), (row) => ({ ...row }));
}

/** Users (and bots) by id, ascending; unknown ids are skipped. */
export async function usersByIds(db: Db, realmId: number, ids: number[]): Promise<UserRow[]> {
  return copiesByIds(await realmUsersById(db, realmId), ids);
}

/** Ids and roles of the given users (all, or active ones only); unknown ids are skipped. */
export async function userRolesByIds(db: Db, realmId: number, ids: number[], opts: { activeOnly: boolean }): Promise<Array<Pick<UserRow, "id" | "role">>> {
  let query = db.selectFrom("users").select(["id", "role"]).where("realm_id", "=", realmId);
  if (opts.activeOnly) query = query.where("is_active", "=", 1);
  return collectChunks(idChunks(ids), (chunk) => query.where("id", "in", chunk).execute());
}

/** Users (and bots) with any of the given ids or lowercased delivery emails. */
export async function usersByIdsOrEmails(db: Db, realmId: number, ids: number[], loweredEmails: string[]): Promise<UserRow[]> {
  const byEmail = await collectChunks(valueChunks(loweredEmails), (chunk) =>
    db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where(sql<string>`lower(delivery_email)`, "in", chunk).execute(),
  );
  return distinctById([...(await usersByIds(db, realmId, ids)), ...byEmail]);
}

/** The first row of each id, in the order given. */
function distinctById<R extends { id: number }>(rows: R[]): R[] {
  return [...new Map(rows.map((r) => [r.id, r])).values()];
}

/** A user a message may mention: id, name, delivery email and whether active. */
type MentionableUser = Pick<UserRow, "id" | "full_name" | "delivery_email" | "is_active">;

/** Users with any of the given lowercased full names or ids, active ones first, then by id. */
export async function usersByNamesOrIds(db: Db, realmId: number, loweredNames: string[], ids: number[]): Promise<MentionableUser[]> {
  const query = db.selectFrom("users").select(["id", "full_name", "delivery_email", "is_active"]).where("realm_id", "=", realmId);
  const byName = await collectChunks(valueChunks(loweredNames), (chunk) => query.where(sql<string>`lower(full_name)`, "in", chunk).execute());
  const byId = await collectChunks(idChunks(ids), (chunk) => query.where("id", "in", chunk).execute());
  return distinctById([...byName, ...byId]).sort((a, b) => b.is_active - a.is_active || a.id - b.id);
}

/** Ids of every active user and bot. */
export const activeUserIds = cachedRead(
  "active user ids",
  ["users"],
  (realmId: number) => String(realmId),
  (ids: number[]) => ids.slice(),
  async (db, realmId) => {
    const rows = await db.selectFrom("users").select("id").where("realm_id", "=", realmId).where("is_active", "=", 1).orderBy("id").execute();
    return rows.map((r) => r.id);
  },
);

/** Number of active human owners (the "last owner" rule counts these). */
export async function countActiveHumanOwners(db: Db, realmId: number): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where("is_bot", "=", 0)
    .where("role", "=", ROLE.owner)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Number of active accounts, bots included. */
export async function countActiveUsers(db: Db, realmId: number): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const userByApiKeyQuery = prepared("userByApiKey", (db, param: Placeholders<{ apiKey: string }>) =>
  db.selectFrom("users").selectAll().where("api_key", "=", param("apiKey")),
);

/** The user holding an API key (any realm, active or not): authentication's first step. */
export const getUserByApiKey = cachedRead(
  "user by api key",
  ["users"],
  (apiKey: string) => apiKey,
  (row: UserRow | undefined) => row && { ...row },
  async (db, apiKey) => (await userByApiKeyQuery(db, { apiKey }))[0],
);

/** Deactivates or reactivates users, with what their subscriptions keep of it. */
export async function setUsersActive(db: Db, realmId: number, userIds: number[], active: boolean): Promise<void> {
  if (userIds.length === 0) return;
  const flag = active ? 1 : 0;
  await eachChunk(idChunks(userIds), (chunk) => db.updateTable("users").set({ is_active: flag }).where("realm_id", "=", realmId).where("id", "in", chunk).execute());
  await setSubscribersActive(db, realmId, userIds, active);
}

/** Writes the given columns of one user and returns the new row. */
export function updateUser(db: Db, realmId: number, userId: number, patch: UserUpdate): Promise<UserRow> {
  return db.updateTable("users").set(patch).where("realm_id", "=", realmId).where("id", "=", userId).returningAll().executeTakeFirstOrThrow();
}

/** Whether an active account already carries this full name (bots may not share a name). */
export async function activeNameTaken(db: Db, realmId: number, fullName: string): Promise<boolean> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where("full_name", "=", fullName)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ids of active users sharing at least one active channel subscription with `userId`. */
export async function idsSharingSubscription(db: Db, realmId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("subscriptions as theirs")
    .innerJoin("subscriptions as mine", "mine.stream_id", "theirs.stream_id")
    .innerJoin("users", "users.id", "theirs.user_id")
    .select("theirs.user_id")
    .distinct()
    .where("mine.realm_id", "=", realmId)
    .where("mine.user_id", "=", userId)
    .where("mine.active", "=", 1)
    .where("theirs.active", "=", 1)
    .where("users.is_active", "=", 1)
    .execute();
  return rows.map((r) => r.user_id);
}

/** Ids of the users (deactivated ones too) in a direct conversation with `userId`, one-to-one or group, `userId` included. */
export async function idsInDirectConversationsWith(db: Db, realmId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("direct_group_members as mine")
    .innerJoin("direct_groups", "direct_groups.id", "mine.group_id")
    .innerJoin("direct_group_members as theirs", "theirs.group_id", "mine.group_id")
    .select("theirs.user_id")
    .distinct()
    .where("direct_groups.realm_id", "=", realmId)
    .where("mine.user_id", "=", userId)
    .execute();
  return rows.map((r) => r.user_id);
}

/** Bots, all of the realm's or only those owned by `ownerId`, active and deactivated, by id (every register asks). */
export const listBots = cachedRead(
  "bots",
  ["users"],
  (realmId: number, ownerId: number | null) => `${realmId}/${ownerId ?? "all"}`,
  copyRows<UserRow>,
  (db, realmId, ownerId) => {
    let query = db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_bot", "=", 1);
    if (ownerId !== null) query = query.where("bot_owner_id", "=", ownerId);
    return query.orderBy("id").execute();
  },
);

/** Adds an outgoing-webhook service to a bot. */
export async function insertService(db: Db, realmId: number, service: { botUserId: number; baseUrl: string; token: string; interface: number }): Promise<void> {
  await db
    .insertInto("services")
    .values({ realm_id: realmId, bot_user_id: service.botUserId, base_url: service.baseUrl, token: service.token, interface: service.interface })
    .execute();
}

/** Services of the given bots, by bot id. */
export async function servicesByBot(db: Db, realmId: number, botIds: number[]): Promise<Map<number, ServiceRow[]>> {
  const out = new Map<number, ServiceRow[]>();
  const rows = await collectChunks(idChunks(botIds), (chunk) =>
    db.selectFrom("services").selectAll().where("realm_id", "=", realmId).where("bot_user_id", "in", chunk).orderBy("id").execute(),
  );
  for (const row of rows) out.set(row.bot_user_id, [...(out.get(row.bot_user_id) ?? []), row]);
  return out;
}

/** Inserts a user or bot and returns its row. */
export function insertUser(db: Db, values: NewUser): Promise<UserRow> {
  return db.insertInto("users").values({ uuid: randomUUID(), ...values }).returningAll().executeTakeFirstOrThrow();
}

/** Ids of the active bots a user owns. */
export async function activeBotIdsOwnedBy(db: Db, realmId: number, ownerId: number): Promise<number[]> {
  const rows = await db.selectFrom("users").select("id").where("realm_id", "=", realmId).where("bot_owner_id", "=", ownerId).where("is_active", "=", 1).execute();
  return rows.map((r) => r.id);
}

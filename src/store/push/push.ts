/** Users' push device tokens and the push relay's job queue (see schema/push.ts). */
import type { Insertable } from "kysely";
import { collectChunks, eachChunk, idChunks, rowChunks, valueChunks } from "../engine/chunks.ts";
import { jobQueue } from "../engine/job-tables.ts";
import type { PushDeviceRow, PushDeviceTokenRow, PushDeviceTokenTable, PushRelayJobRow, PushRelayJobTable, PushTokenKind } from "../schema/push.ts";
import type { Db } from "../schema/types.ts";
import { cachedUserRows } from "../engine/read-cache.ts";

const JOBS = "push_relay_jobs";

/** The relay calls waiting to be made (see job-tables.ts). */
export const pushRelayJobs = jobQueue<PushRelayJobRow>(JOBS);

/**
 * Stores a user's token unless it is there already. A row with a `relay_id` (its registration
 * queued for that relay) marks a known token too; one without leaves a known token's as it was.
 */
export async function insertPushDeviceToken(db: Db, row: Insertable<PushDeviceTokenTable>): Promise<void> {
  const relayId = row.relay_id ?? null;
  await db
    .insertInto("push_device_tokens")
    .values(row)
    .onConflict((oc) => {
      const target = oc.columns(["user_id", "kind", "token"]);
      return relayId === null ? target.doNothing() : target.doUpdateSet({ relay_id: relayId });
    })
    .execute();
}

/** A user's tokens (of either kind) equal to one of a few spellings of a token. */
export function pushDeviceTokensNamed(db: Db, realmId: number, userId: number, spellings: readonly string[]): Promise<PushDeviceTokenRow[]> {
  return db
    .selectFrom("push_device_tokens")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where((eb) => eb.or(spellings.map((t) => eb("token", "=", t))))
    .orderBy("id")
    .execute();
}

/** The realms holding tokens whose registration was not queued for relay `relayId` (a start's look across realms, as the job queue's). */
export async function realmsWithTokensUnknownTo(db: Db, relayId: string): Promise<number[]> {
  const rows = await db
    .selectFrom("push_device_tokens")
    .select("realm_id")
    .distinct()
    .where((eb) => eb.or([eb("relay_id", "is", null), eb("relay_id", "!=", relayId)]))
    .execute();
  return rows.map((r) => r.realm_id);
}

/**
 * Marks the realm's tokens whose registration was not queued for relay `relayId` as queued for
 * it, and returns them. One UPDATE: two processes starting at once each get their own rows
 * (PostgreSQL re-reads a row another transaction updated meanwhile and finds it marked).
 */
export function takeTokensUnknownTo(db: Db, realmId: number, relayId: string): Promise<PushDeviceTokenRow[]> {
  return db
    .updateTable("push_device_tokens")
    .set({ relay_id: relayId })
    .where("realm_id", "=", realmId)
    .where((eb) => eb.or([eb("relay_id", "is", null), eb("relay_id", "!=", relayId)]))
    .returningAll()
    .execute();
}

/** Deletes a user's token; true when there was one. */
export async function deletePushDeviceToken(db: Db, userId: number, kind: PushTokenKind, token: string): Promise<boolean> {
  const result = await db.deleteFrom("push_device_tokens").where("user_id", "=", userId).where("kind", "=", kind).where("token", "=", token).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes those of a user's tokens of one kind the relay says are gone. */
export async function deletePushDeviceTokens(db: Db, userId: number, kind: PushTokenKind, tokens: readonly string[]): Promise<void> {
  await eachChunk(valueChunks(tokens), (chunk) => db.deleteFrom("push_device_tokens").where("user_id", "=", userId).where("kind", "=", kind).where("token", "in", chunk).execute());
}

/** A user's registered tokens, oldest first. */
export function pushDeviceTokensOf(db: Db, realmId: number, userId: number): Promise<PushDeviceTokenRow[]> {
  return db.selectFrom("push_device_tokens").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute();
}

/** A user's E2EE registration by its client id. */
export function getPushDevice(db: Db, userId: number, pushAccountId: string): Promise<PushDeviceRow | undefined> {
  return db.selectFrom("push_devices").selectAll().where("user_id", "=", userId).where("push_account_id", "=", pushAccountId).executeTakeFirst();
}

/** A user's E2EE registrations, oldest first. */
export const pushDevicesOf = cachedUserRows("push devices of a user", ["push_devices"], (db, realmId, userId): Promise<PushDeviceRow[]> =>
  db.selectFrom("push_devices").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute(),
);

/** Creates a registration, or makes a failed one pending again with the new key (its relay id kept). */
export async function upsertPushDevice(db: Db, row: { realm_id: number; user_id: number; token_kind: string; push_account_id: string; push_public_key: string }): Promise<void> {
  await db
    .insertInto("push_devices")
    .values({ ...row, bouncer_device_id: null, error_code: null })
    .onConflict((oc) => oc.columns(["user_id", "push_account_id"]).doUpdateSet({ token_kind: row.token_kind, push_public_key: row.push_public_key, error_code: null }))
    .execute();
}

/** Records the relay's answer to a registration: its device id, or its error code. */
export async function settlePushDevice(db: Db, userId: number, pushAccountId: string, outcome: { deviceId: string } | { errorCode: string }): Promise<boolean> {
  const set = "deviceId" in outcome ? { bouncer_device_id: outcome.deviceId, error_code: null } : { error_code: outcome.errorCode };
  const result = await db.updateTable("push_devices").set(set).where("user_id", "=", userId).where("push_account_id", "=", pushAccountId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A user's registrations the relay took (active), narrowed to one client id when given. */
export function activePushDevicesOf(db: Db, realmId: number, userId: number, pushAccountId: string | null): Promise<PushDeviceRow[]> {
  let query = db.selectFrom("push_devices").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).where("bouncer_device_id", "is not", null);
  if (pushAccountId !== null) query = query.where("push_account_id", "=", pushAccountId);
  return query.orderBy("id").execute();
}

/** Deletes a realm's registrations the relay says are gone (by its device ids). */
export async function deletePushDevicesByRelayIds(db: Db, realmId: number, deviceIds: readonly string[]): Promise<void> {
  await eachChunk(valueChunks(deviceIds), (chunk) =>
    db.deleteFrom("push_devices").where("realm_id", "=", realmId).where("bouncer_device_id", "in", chunk).execute(),
  );
}

/** Queues a relay call. */
export async function insertPushRelayJob(db: Db, row: Insertable<PushRelayJobTable>): Promise<void> {
  await db.insertInto(JOBS).values(row).execute();
}

/** Queues relay calls together; returns them as stored (with their ids). */
export async function insertPushRelayJobs(db: Db, rows: Insertable<PushRelayJobTable>[]): Promise<PushRelayJobRow[]> {
  return collectChunks(rowChunks(rows), (chunk) => db.insertInto(JOBS).values(chunk).returningAll().execute());
}

/** Drops finished relay calls. */
export async function deletePushRelayJobs(db: Db, ids: number[]): Promise<void> {
  await eachChunk(idChunks(ids), (chunk) => db.deleteFrom(JOBS).where("id", "in", chunk).execute());
}


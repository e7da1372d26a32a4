/**
 * Organization data exports (table realm_exports): the rows the API lists, and their life as a
 * job. A requested export is taken by one process (status started, with a lease it renews while
 * it builds the file); a started export whose lease ran out, or which the restarting process
 * itself left, is failed. Also what the export limits read: a realm's message count and upload bytes.
 */
import type { Db } from "../schema/types.ts";
import { EXPORT_STATUS } from "../../model/realm-exports.ts";
import type { RealmExportRow } from "../schema/realm-exports.ts";

/** Records a requested export; returns it. */
export function insertRealmExport(db: Db, realmId: number, actingUserId: number, exportType: number, nowMs: number): Promise<RealmExportRow> {
  return db
    .insertInto("realm_exports")
    .values({ realm_id: realmId, acting_user_id: actingUserId, export_type: exportType, status: EXPORT_STATUS.requested, requested_at_ms: nowMs })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The realm's exports, oldest first. */
export function listRealmExports(db: Db, realmId: number): Promise<RealmExportRow[]> {
  return db.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}

/** One export of the realm, if any. */
export function getRealmExport(db: Db, realmId: number, id: number): Promise<RealmExportRow | undefined> {
  return db.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** The export stored at `exportPath` in the realm, if any. */
export function realmExportByPath(db: Db, realmId: number, exportPath: string): Promise<RealmExportRow | undefined> {
  return db.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).where("export_path", "=", exportPath).executeTakeFirst();
}

/** How many exports the realm asked for since `sinceMs` (upstream's weekly limit counts every one). */
export async function countRealmExportsSince(db: Db, realmId: number, sinceMs: number): Promise<number> {
  const row = await db
    .selectFrom("realm_exports")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("realm_id", "=", realmId)
    .where("requested_at_ms", ">=", sinceMs)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The realm's messages and the bytes of its uploads, which bound what may be exported without an operator. */
export async function realmExportSize(db: Db, realmId: number): Promise<{ messages: number; uploadBytes: number }> {
  const messages = await db.selectFrom("messages").select((eb) => eb.fn.countAll<number | string>().as("n")).where("realm_id", "=", realmId).executeTakeFirstOrThrow();
  const uploads = await db.selectFrom("attachments").select((eb) => eb.fn.sum<number | string | null>("size").as("n")).where("realm_id", "=", realmId).executeTakeFirstOrThrow();
  return { messages: Number(messages.n), uploadBytes: Number(uploads.n ?? 0) };
}

/** Exports a worker may act on at `nowMs`: requested ones, and started ones whose lease ran out; oldest first. */
export function dueRealmExports(db: Db, nowMs: number, limit: number): Promise<RealmExportRow[]> {
  return db
    .selectFrom("realm_exports")
    .selectAll()
    .where((eb) => eb.or([eb("status", "=", EXPORT_STATUS.requested), eb.and([eb("status", "=", EXPORT_STATUS.started), eb("lease_until_ms", "<=", nowMs)])]))
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** When the earliest lease of a started export ends, or now when one is requested; null when none waits. */
export async function nextRealmExportDue(db: Db, nowMs: number): Promise<number | null> {
  const requested = await db.selectFrom("realm_exports").select("id").where("status", "=", EXPORT_STATUS.requested).limit(1).executeTakeFirst();
  if (requested) return nowMs;
  const row = await db
    .selectFrom("realm_exports")
    .select((eb) => eb.fn.min("lease_until_ms").as("next"))
    .where("status", "=", EXPORT_STATUS.started)
    .executeTakeFirst();
  const next = row?.next as number | string | null | undefined;
  return next === null || next === undefined ? null : Number(next);
}

/** Takes a requested export for `processId` until `leaseUntilMs`; false when another process took it first. */
export async function claimRealmExport(db: Db, id: number, processId: string, leaseUntilMs: number): Promise<boolean> {
  const result = await db
    .updateTable("realm_exports")
    .set({ status: EXPORT_STATUS.started, process_id: processId, lease_until_ms: leaseUntilMs })
    .where("id", "=", id)
    .where("status", "=", EXPORT_STATUS.requested)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Extends the lease of an export this process builds; false when it is no longer this process's (failed meanwhile). */
export async function renewRealmExportLease(db: Db, id: number, processId: string, leaseUntilMs: number): Promise<boolean> {
  const result = await db
    .updateTable("realm_exports")
    .set({ lease_until_ms: leaseUntilMs })
    .where("id", "=", id)
    .where("status", "=", EXPORT_STATUS.started)
    .where("process_id", "=", processId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records a started export's file; false when it was no longer this process's. */
export async function markRealmExportSucceeded(db: Db, id: number, processId: string, exportPath: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable("realm_exports")
    .set({ status: EXPORT_STATUS.succeeded, export_path: exportPath, succeeded_at_ms: nowMs, lease_until_ms: null })
    .where("id", "=", id)
    .where("status", "=", EXPORT_STATUS.started)
    .where("process_id", "=", processId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Fails a started export: the one a process was building (`processId`), or, with `leaseUntilMs`,
 * one whose lease ended as read (its process died). False when it was not in that state.
 */
export async function markRealmExportFailed(db: Db, id: number, nowMs: number, holder: { processId: string } | { leaseUntilMs: number }): Promise<boolean> {
  let query = db
    .updateTable("realm_exports")
    .set({ status: EXPORT_STATUS.failed, failed_at_ms: nowMs, lease_until_ms: null })
    .where("id", "=", id)
    .where("status", "=", EXPORT_STATUS.started);
  query = "processId" in holder ? query.where("process_id", "=", holder.processId) : query.where("lease_until_ms", "=", holder.leaseUntilMs);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The exports a process with this id left started (it stopped or crashed mid-export): ids and realms. */
export function realmExportsStartedBy(db: Db, processId: string): Promise<Array<Pick<RealmExportRow, "id" | "realm_id">>> {
  return db.selectFrom("realm_exports").select(["id", "realm_id"]).where("status", "=", EXPORT_STATUS.started).where("process_id", "=", processId).execute();
}

/** Marks a finished export deleted (its file is removed by the caller). */
export async function markRealmExportDeleted(db: Db, realmId: number, id: number, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable("realm_exports")
    .set({ status: EXPORT_STATUS.deleted, deleted_at_ms: nowMs })
    .where("realm_id", "=", realmId)
    .where("id", "=", id)
    .where("status", "=", EXPORT_STATUS.succeeded)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

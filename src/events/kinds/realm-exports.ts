/**
 * `realm_export` (the organization's exports, whole, when one is asked for, finishes, fails or
 * is deleted) and `realm_export_consent` (a user's allow_private_data_export changed); both go
 * to the realm's human administrators, as upstream sends them.
 */
import type { ApiRealmExport } from "../../present/realm-exports.ts";

export type RealmExportEvent = { type: "realm_export"; exports: ApiRealmExport[] };
export type RealmExportConsentEvent = { type: "realm_export_consent"; user_id: number; consented: boolean };

/** The realm's exports as they now stand. */
export function realmExportEvent(exports: ApiRealmExport[]): RealmExportEvent {
  return { type: "realm_export", exports };
}

/** A user's consent to the export of their private data. */
export function realmExportConsentEvent(userId: number, consented: boolean): RealmExportConsentEvent {
  return { type: "realm_export_consent", user_id: userId, consented };
}

/** Organization data exports as the API shows them (upstream's get_realm_exports_serialized). */
import { EXPORT_STATUS } from "../model/realm-exports.ts";
import type { RealmExportRow } from "../store/schema/realm-exports.ts";

/** A data export (OpenAPI's RealmExport). */
export type ApiRealmExport = {
  id: number;
  acting_user_id: number;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  export_type: number;
};

/** Where a stored export file is downloaded from: `/user_uploads/exports/` and its path in the uploads directory's exports area. */
export function realmExportUrl(externalUrl: string, exportPath: string): string {
  return `${externalUrl}/user_uploads/exports/${exportPath}`;
}

const seconds = (ms: number | null): number | null => (ms === null ? null : ms / 1000);

/** One export: a URL only once its file is written and until it is deleted. */
export function presentRealmExport(row: RealmExportRow, externalUrl: string): ApiRealmExport {
  return {
    id: row.id,
    acting_user_id: row.acting_user_id,
    export_time: row.requested_at_ms / 1000,
    deleted_timestamp: seconds(row.deleted_at_ms),
    failed_timestamp: seconds(row.failed_at_ms),
    export_url: row.status === EXPORT_STATUS.succeeded && row.export_path !== null ? realmExportUrl(externalUrl, row.export_path) : null,
    pending: row.status === EXPORT_STATUS.requested || row.status === EXPORT_STATUS.started,
    export_type: row.export_type,
  };
}

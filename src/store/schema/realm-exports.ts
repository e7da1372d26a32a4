/**
 * Table types of organization data exports (listed in database.ts's Database): one row per
 * export an administrator asked for (Zulip's RealmExport), which is also the background job
 * that builds its file (actions/export/export-worker.ts).
 */
import type { Generated, Selectable } from "kysely";

export interface RealmExportTable {
  id: Generated<number>;
  realm_id: number;
  acting_user_id: number;
  /** EXPORT_TYPE (model/realm-exports.ts). */
  export_type: number;
  /** EXPORT_STATUS (model/realm-exports.ts). */
  status: number;
  /** UNIX milliseconds. */
  requested_at_ms: number;
  succeeded_at_ms: number | null;
  failed_at_ms: number | null;
  deleted_at_ms: number | null;
  /** The tarball, relative to the uploads directory (`exports/<realm>/<random>/<name>.tar.gz`), once written. */
  export_path: string | null;
  /** While started: the process building it (PROCESS_ID, or the port) and until when its lease holds (renewed while it runs). */
  process_id: string | null;
  lease_until_ms: number | null;
}

/** A stored export. */
export type RealmExportRow = Selectable<RealmExportTable>;

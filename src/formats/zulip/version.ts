/**
 * Which Zulip exports this reader takes, judged by migration_status.json: the export lists the
 * database migrations its server had applied. The zerver app's newest migration number says
 * which schema the tables have. The oldest schema read is that of Zulip 10.0 at feature level
 * 321 (zerver migration 0629): from Zulip 10.0 on, realm permissions are user-group settings, and
 * that is what Parley stores; older exports hold the integer *_policy settings that Zulip 10.0
 * replaced. Newer exports are read: the tables and fields they add are left aside and named in
 * the import's log, and the renames this reader knows (zerver_huddle to
 * zerver_directmessagegroup, stream_post_policy to can_send_message_group) are followed.
 */
import { ImportRefusedError } from "../../errors.ts";
import writtenStatus from "./migration-status-10.0.json" with { type: "json" };

/** The oldest zerver migration this reader takes (Zulip 10.0, feature level 321). */
export const OLDEST_ZERVER_MIGRATION = 629;

/** What migration_status.json says of the export's server. */
export type ExportVersion = { zulipVersion: string; zerverMigration: number };

function migrationNumbers(names: readonly unknown[]): number[] {
  return names.flatMap((name) => {
    const m = typeof name === "string" ? /^(\d{4})_/.exec(name) : null;
    return m ? [Number(m[1])] : [];
  });
}

/** Reads migration_status.json's content; refuses an export older than OLDEST_ZERVER_MIGRATION or without the list. */
export function checkExportVersion(status: unknown): ExportVersion {
  const record = status !== null && typeof status === "object" ? (status as Record<string, unknown>) : {};
  const byApp = record.migrations_by_app;
  const zerver = byApp !== null && typeof byApp === "object" ? (byApp as Record<string, unknown>).zerver : undefined;
  if (!Array.isArray(zerver)) throw new ImportRefusedError("migration_status.json does not list the zerver migrations: this is not an export of a Zulip server this importer can read");
  const numbers = migrationNumbers(zerver);
  const newest = numbers.length === 0 ? 0 : Math.max(...numbers);
  const zulipVersion = typeof record.zulip_version === "string" ? record.zulip_version : "unknown";
  if (newest < OLDEST_ZERVER_MIGRATION) {
    const found = String(newest).padStart(4, "0");
    throw new ImportRefusedError(
      `this export comes from Zulip ${zulipVersion} (zerver migration ${found}); exports from Zulip 10.0 (migration ${String(OLDEST_ZERVER_MIGRATION).padStart(4, "0")}) or newer are read: upgrade that server and export again`,
    );
  }
  return { zulipVersion, zerverMigration: newest };
}

/**
 * What the exports Parley writes say in migration_status.json: the full migration list, app by
 * app, of the upstream server whose format they follow (Zulip 10.0-dev at feature level 321,
 * zerver migration 0629), kept as data in migration-status-10.0.json, copied from a real export of
 * that server (the test fixture). Upstream's `manage.py import` compares an export's list with
 * its own and refuses any difference, so a Zulip server at exactly that migration state imports
 * Parley's exports (docs/export.md). Rows carry Zulip 10.0's table names (zerver_huddle) and, where
 * Parley keeps more (newer group-valued settings), the fields under upstream's newer names.
 */
export const WRITTEN_MIGRATION_STATUS: { zulip_version: string; migrations_by_app: Readonly<Record<string, readonly string[]>> } = {
  zulip_version: writtenStatus.zulip_version,
  migrations_by_app: writtenStatus.migrations_by_app,
};

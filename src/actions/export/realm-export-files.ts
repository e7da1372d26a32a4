/**
 * An export's file: where the worker writes it (a fresh, unguessable path under the uploads
 * directory's `exports/` area) and who may download it (the realm's administrators, while the
 * export stands finished and not deleted).
 */
import fs from "node:fs/promises";
import path from "node:path";
import { FileNotFoundError } from "../../errors.ts";
import { storedFilePath } from "../../files/storage.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { randomAlphanumeric } from "../../secrets.ts";
import { realmExportByPath } from "../../store/realm/realm-exports.ts";
import { EXPORT_STATUS } from "../../model/realm-exports.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";

/** A new export file's path inside the `exports/` area: `<realm_id>/<random>/zulip-export-<random>.tar.gz`, as upstream names its tarballs. */
export function newExportPath(realmId: number): string {
  return `${realmId}/${randomAlphanumeric(32)}/zulip-export-${randomAlphanumeric(8).toLowerCase()}.tar.gz`;
}

/** Where an export path is on disk (the worker writes there); throws for a path that leaves the area. */
export function exportFileOnDisk(uploadsDir: string, exportPath: string): string {
  const full = storedFilePath(uploadsDir, "exports", exportPath);
  if (full === null) throw new Error("unsafe export path");
  return full;
}

/** A file to stream to the caller. */
export type ExportFile = { fullPath: string; fileName: string; size: number };

/**
 * The export stored at `exportPath` (the URL's path after `/user_uploads/exports/`), for an
 * administrator of its realm; anyone else, and any path that is not a finished export, gets
 * the 404 of a missing file.
 */
export async function readRealmExportFile(db: Db, uploadsDir: string, realm: RealmRow, user: UserRow, exportPath: string): Promise<ExportFile> {
  if (!isRealmAdmin(user)) throw new FileNotFoundError();
  const row = await realmExportByPath(db, realm.id, exportPath);
  const fullPath = storedFilePath(uploadsDir, "exports", exportPath);
  if (!row || row.status !== EXPORT_STATUS.succeeded || fullPath === null) throw new FileNotFoundError();
  try {
    const stat = await fs.stat(fullPath);
    return { fullPath, fileName: path.basename(fullPath), size: stat.size };
  } catch {
    throw new FileNotFoundError();
  }
}

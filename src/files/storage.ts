/**
 * Local file storage under UPLOADS_DIR: message uploads in `files/<path_id>`, custom emoji in
 * `emoji/<realm_id>/<file name>`, uploaded avatars in `avatars/<realm_id>/<user_id>.png`,
 * organization data exports in `exports/<realm_id>/<random>/<name>.tar.gz`. Every relative path is checked to stay inside its area, so a
 * crafted path can never read or delete anything else.
 */
import fs from "node:fs/promises";
import { constants as fsConstants } from "node:fs";
import path from "node:path";
import { MAX_FILE_NAME_BYTES } from "./names.ts";

/** The storage areas under the uploads directory. */
type StorageArea = "files" | "emoji" | "avatars" | "exports";

/** Resolves `relative` inside `area`, or null when it is empty or would leave the area. */
function resolveStoredPath(uploadsDir: string, area: StorageArea, relative: string): string | null {
  const base = path.join(uploadsDir, area);
  if (relative === "" || relative.includes("\0")) return null;
  const segments = relative.split("/");
  if (segments.some((s) => s === "" || s === "." || s === ".." || s.includes("\\") || Buffer.byteLength(s) > MAX_FILE_NAME_BYTES)) return null;
  const full = path.resolve(base, ...segments);
  return full.startsWith(base + path.sep) ? full : null;
}

/** Where a stored file is (or is to be written) on disk, or null for an unsafe path: for files read or written as streams (exports). */
export function storedFilePath(uploadsDir: string, area: StorageArea, relative: string): string | null {
  return resolveStoredPath(uploadsDir, area, relative);
}

function mustResolve(uploadsDir: string, area: StorageArea, relative: string): string {
  const full = resolveStoredPath(uploadsDir, area, relative);
  if (full === null) throw new Error(`unsafe storage path in ${area}`);
  return full;
}

/** Writes a file (creating its directories); an existing file is never overwritten. */
export async function writeStoredFile(uploadsDir: string, area: StorageArea, relative: string, data: Buffer): Promise<void> {
  const full = mustResolve(uploadsDir, area, relative);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, data, { flag: "wx" });
}

/** Errors that mean "no such file" for a path a client named (a folder, or a name too long). */
const MISSING_CODES = new Set(["ENOENT", "ENOTDIR", "EISDIR", "ENAMETOOLONG"]);

function isMissing(err: unknown): boolean {
  return err instanceof Error && "code" in err && typeof err.code === "string" && MISSING_CODES.has(err.code);
}

/** Reads a stored file, or null when it is missing or the path is unsafe. */
export async function readStoredFile(uploadsDir: string, area: StorageArea, relative: string): Promise<Buffer | null> {
  const full = resolveStoredPath(uploadsDir, area, relative);
  if (full === null) return null;
  try {
    return await fs.readFile(full);
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** Deletes stored files; already-missing ones are fine. Returns how many were removed. */
export async function removeStoredFiles(uploadsDir: string, area: StorageArea, relatives: readonly string[]): Promise<number> {
  let removed = 0;
  for (const relative of relatives) {
    const full = resolveStoredPath(uploadsDir, area, relative);
    if (full === null) continue;
    try {
      await fs.unlink(full);
      removed += 1;
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
  return removed;
}

/**
 * Copies a file from outside the uploads directory into `area` at `relative` (an import's files),
 * never overwriting one; returns where it went.
 */
export async function copyIntoStorage(uploadsDir: string, area: StorageArea, relative: string, source: string): Promise<string> {
  const full = mustResolve(uploadsDir, area, relative);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.copyFile(source, full, fsConstants.COPYFILE_EXCL);
  return full;
}

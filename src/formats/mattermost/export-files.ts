/**
 * Where a Mattermost bulk export's pieces are on disk: the JSON-lines file (given itself, or
 * found in the given directory), and the files it names, looked up beside it as upstream's
 * converter does: attachments under `data/`, custom emoji images by their path from the
 * export's directory; each also the other way round (`mmctl export` zips write paths that start
 * with `data/`). A path that leads out of the export's directory is treated as missing.
 */
import fs from "node:fs";
import path from "node:path";
import { ImportRefusedError } from "../../errors.ts";

/** The names a directory's export file goes by: `mmctl export` zips hold import.jsonl; upstream's fixtures export.json. */
const EXPORT_NAMES = ["export.jsonl", "import.jsonl", "export.json"];

export type ExportLocation = { file: string; dir: string };

/** The export file and its directory, from a path to either. */
export function locateExport(source: string): ExportLocation {
  const stat = fs.statSync(source, { throwIfNoEntry: false });
  if (stat === undefined) throw new ImportRefusedError(`${source} does not exist`);
  if (stat.isFile()) return { file: path.resolve(source), dir: path.dirname(path.resolve(source)) };
  const dir = path.resolve(source);
  for (const name of EXPORT_NAMES) {
    if (fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.isFile()) return { file: path.join(dir, name), dir };
  }
  const jsonl = fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  if (jsonl.length === 1) return { file: path.join(dir, jsonl[0]), dir };
  throw new ImportRefusedError(`${source} holds no Mattermost bulk export (${EXPORT_NAMES.join(", ")} or a single .jsonl file)`);
}

/** `relative` under `base`, when it is a file there (and does not climb out of it). */
function fileUnder(base: string, relative: string): string | null {
  const full = path.resolve(base, relative);
  if (full !== base && !full.startsWith(base + path.sep)) return null;
  return fs.statSync(full, { throwIfNoEntry: false })?.isFile() ? full : null;
}

/** An attachment's file, from the path its post gives: under `data/` (upstream's reading), or from the folder (paths that start with `data/`). */
export function attachmentFile(location: ExportLocation, relative: string): string | null {
  return fileUnder(path.join(location.dir, "data"), relative) ?? fileUnder(location.dir, relative);
}

/** A custom emoji's image, from the path its line gives. */
export function emojiFile(location: ExportLocation, relative: string): string | null {
  return fileUnder(location.dir, relative) ?? fileUnder(path.join(location.dir, "data"), relative);
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
  ".svg": "image/svg+xml", ".pdf": "application/pdf", ".txt": "text/plain", ".zip": "application/zip", ".json": "application/json",
};

/** A content type from a file name's extension, or null when unknown. */
export function contentTypeOf(name: string): string | null {
  return CONTENT_TYPES[path.extname(name).toLowerCase()] ?? null;
}

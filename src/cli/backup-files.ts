/**
 * Files on disk for backups: listing a folder, a file's size and SHA-256. Taking a file into a
 * staging folder is formats/link-or-copy.ts's (a hard link, which a later delete of the original
 * cannot take away, or a copy across file systems).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

function code(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

/** The regular files under `dir`, as relative paths with `/` ([] when `dir` does not exist). */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(path.join(dir, relative), { withFileTypes: true });
    } catch (err) {
      // Gone meanwhile (a folder the server removed), or never made (no uploads yet).
      if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return;
      throw err;
    }
    for (const entry of entries) {
      const name = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(name);
      else if (entry.isFile()) out.push(name);
    }
  };
  await walk("");
  return out;
}

/** The size of a file, or null when it does not exist. */
export async function fileSize(file: string): Promise<number | null> {
  try {
    return (await fsp.stat(file)).size;
  } catch (err) {
    if (code(err) === "ENOENT") return null;
    throw err;
  }
}

/** A file's size and SHA-256 (hex). */
export async function fileDigest(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = crypto.createHash("sha256");
  let bytes = 0;
  const chunks: AsyncIterable<Buffer> = fs.createReadStream(file);
  for await (const chunk of chunks) {
    bytes += chunk.length;
    hash.update(chunk);
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** Whether `dir` is missing or holds nothing. */
export async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await fsp.readdir(dir)).length === 0;
  } catch (err) {
    if (code(err) === "ENOENT") return true;
    if (code(err) === "ENOTDIR") return false;
    throw err;
  }
}

/** A byte count for people: `12.3 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Puts a file where an archive is staged: a hard link where both paths are on one file system
 * (no time, no space, and a later delete of the original cannot take it away), else a copy.
 * Backups (cli/backup.ts) stage the uploads this way, and the Zulip export writer its stored files.
 */
import fsp from "node:fs/promises";
import path from "node:path";

function code(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

/**
 * Puts `from` at `to` (a new path; its folders are made): a hard link where both are on one file
 * system, else a copy. False when `from` no longer exists.
 */
export async function linkOrCopy(from: string, to: string): Promise<boolean> {
  await fsp.mkdir(path.dirname(to), { recursive: true });
  try {
    await fsp.link(from, to);
    return true;
  } catch (err) {
    if (code(err) === "ENOENT") return false;
    if (code(err) !== "EXDEV" && code(err) !== "EPERM" && code(err) !== "EMLINK") throw err;
  }
  try {
    await fsp.copyFile(from, to);
    return true;
  } catch (err) {
    if (code(err) === "ENOENT") return false;
    throw err;
  }
}


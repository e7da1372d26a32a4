/**
 * A Slack export on disk: the folder holding users.json and channels.json (a .zip is unpacked
 * first, unzip.ts), its JSON files read and checked against the shapes of slack-rows.ts, and its
 * conversations' day files (`<folder>/YYYY-MM-DD.json`) listed by day. A missing users.json or
 * channels.json, or a file that is not valid JSON of the expected shape, is refused with
 * ImportRefusedError.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { ImportRefusedError } from "../../errors.ts";
import { unzipInto } from "./unzip.ts";

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.json$/;

async function isDirectory(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isDirectory() === true;
}

/** The folder holding users.json: the given one or its only subfolder (a zip of the folder itself). */
async function exportRoot(dir: string): Promise<string> {
  if (fs.existsSync(path.join(dir, "users.json"))) return dir;
  const folders = (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith("__"));
  if (folders.length === 1 && fs.existsSync(path.join(dir, folders[0].name, "users.json"))) return path.join(dir, folders[0].name);
  throw new ImportRefusedError("users.json is missing: this is not a Slack export");
}

/** Opens `source` (a .zip, unpacked into `workDir`, or a folder); returns the export's folder. */
export async function openSlackExport(source: string, workDir: string): Promise<string> {
  if (!fs.existsSync(source)) throw new ImportRefusedError(`${source} does not exist`);
  let dir = source;
  if (!(await isDirectory(source))) {
    await unzipInto(source, workDir);
    dir = workDir;
  }
  const root = await exportRoot(dir);
  if (!fs.existsSync(path.join(root, "channels.json"))) throw new ImportRefusedError("channels.json is missing: this is not a Slack export");
  return root;
}

/** A JSON file of the export, parsed and checked (null: the file is not there and `optional`). */
export async function readSlackJson<S extends z.ZodType>(file: string, label: string, schema: S, optional = false): Promise<z.output<S> | null> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && optional) return null;
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new ImportRefusedError(`${label} is missing from the export`);
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ImportRefusedError(`${label} is not valid JSON (truncated or damaged)`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ImportRefusedError(`${label}: '${issue.path.join(".")}' is missing or malformed (${issue.message})`);
}

/** Each conversation folder's day files, by day: day -> folder names that have a file for it. */
export async function dayFiles(root: string, folders: readonly string[]): Promise<Map<string, string[]>> {
  const byDay = new Map<string, string[]>();
  for (const folder of folders) {
    const full = path.join(root, folder);
    if (!(await isDirectory(full))) continue;
    for (const name of await fsp.readdir(full)) {
      const day = DAY_FILE.exec(name)?.[1];
      if (day === undefined) continue;
      const list = byDay.get(day);
      if (list) list.push(folder);
      else byDay.set(day, [folder]);
    }
  }
  return new Map([...byDay].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * `parley backup --output FILE`: a consistent backup of a server, taken while it runs.
 *
 * Consistent means: the database as of one moment (one snapshot: SQLite's backup API in one
 * step, or the snapshot pg_dump reads), every commit before that moment whole and none after
 * it; every send acknowledged before the command started is in it. With it go exactly the
 * stored files that database names, and the zuliprc of the first start. The uploads are linked
 * into a staging folder twice: all of them before the snapshot, then those the snapshot names
 * that came since; a file the snapshot names but the server deleted in between (a message
 * deleted during the backup) is listed in the manifest's `missing_files` and reported.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config.ts";
import { snapshotPostgres } from "../store/engine/pg-backup.ts";
import { snapshotSqlite } from "../store/engine/sqlite-backup.ts";
import type { SnapshotContents } from "../store/engine/backup-contents.ts";
import { PARLEY_VERSION } from "../version.ts";
import { CliError, parseOptions } from "./args.ts";
import { writeArchive } from "./backup-archive.ts";
import { linkOrCopy } from "../formats/link-or-copy.ts";
import { fileDigest, fileSize, formatBytes, listFiles } from "./backup-files.ts";
import { BACKED_UP_AREAS, DATABASE_MEMBER, newManifest, UPLOADS_PREFIX, ZULIPRC_MEMBER, type Member, type StoreName } from "./backup-manifest.ts";
import { print, warn } from "./terminal.ts";

const say = (message: string) => warn(`backup: ${message}`);

/** Runs one step; a failure that is not already an operator's message becomes one, naming the step. */
async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The output path, refused when its folder is missing or the file exists (a backup never replaces one). */
async function checkOutput(raw: string): Promise<string> {
  const output = path.resolve(raw);
  const folder = await fsp.stat(path.dirname(output)).catch(() => null);
  if (!folder?.isDirectory()) throw new CliError(`the folder of --output does not exist: ${path.dirname(output)}`, 2);
  if ((await fileSize(output)) !== null) throw new CliError(`${output} already exists: give each backup a new name (a backup never replaces a file)`, 2);
  return output;
}

/** The SQLite database of DATA_DIR. */
function sqliteFile(config: Config): string {
  return path.join(config.dataDir, "parley.db");
}

/** Takes the database's snapshot into `staging`, by the store's own means. */
async function snapshot(config: Config, store: StoreName, staging: string): Promise<SnapshotContents> {
  const dest = path.join(staging, DATABASE_MEMBER[store]);
  await fsp.mkdir(path.dirname(dest), { recursive: true });
  if (config.databaseUrl !== null) {
    say("dumping the PostgreSQL database (pg_dump, one snapshot)");
    return step("the database dump", () => snapshotPostgres(config.databaseUrl ?? "", dest));
  }
  const source = sqliteFile(config);
  say(`copying the SQLite database (${formatBytes((await fileSize(source)) ?? 0)}, SQLite's online backup)`);
  return step("the database copy", () => snapshotSqlite(source, dest));
}

/** The stored files under UPLOADS_DIR, as the database names them (`files/...`, `emoji/...`, `avatars/...`). */
async function storedFiles(uploadsDir: string): Promise<string[]> {
  const areas = await Promise.all(BACKED_UP_AREAS.map(async (area) => (await listFiles(path.join(uploadsDir, area))).map((name) => `${area}/${name}`)));
  return areas.flat();
}

/** Stages the uploads named by `names` (paths under UPLOADS_DIR) not staged yet; returns those that were gone. */
async function stageUploads(config: Config, staging: string, names: Iterable<string>, staged: Set<string>): Promise<string[]> {
  const gone: string[] = [];
  for (const name of names) {
    if (staged.has(name)) continue;
    if (await linkOrCopy(path.join(config.uploadsDir, name), path.join(staging, UPLOADS_PREFIX, name))) staged.add(name);
    else gone.push(name);
  }
  return gone;
}

/**
 * Keeps in staging exactly the files the snapshot names, each whole: an early copy of a file the
 * server was still writing (copies, not links, can be caught midway) is taken again.
 */
async function settleUploads(config: Config, staging: string, contents: SnapshotContents, staged: Set<string>): Promise<string[]> {
  const named = new Set(contents.files);
  for (const name of staged) {
    const copy = path.join(staging, UPLOADS_PREFIX, name);
    const live = await fileSize(path.join(config.uploadsDir, name));
    if (!named.has(name) || (live !== null && live !== (await fileSize(copy)))) {
      await fsp.rm(copy);
      staged.delete(name);
    }
  }
  return stageUploads(config, staging, contents.files, staged);
}

/** Every file in staging with its size and checksum, the database first. */
async function members(staging: string, store: StoreName, uploads: Set<string>): Promise<Member[]> {
  const paths = [DATABASE_MEMBER[store]];
  if ((await fileSize(path.join(staging, ZULIPRC_MEMBER))) !== null) paths.push(ZULIPRC_MEMBER);
  paths.push(...[...uploads].sort().map((name) => UPLOADS_PREFIX + name));
  const out: Member[] = [];
  for (const p of paths) out.push({ path: p, ...(await fileDigest(path.join(staging, p))) });
  return out;
}

/** `backup --output FILE`. */
export async function runBackup(argv: string[], config: Config): Promise<void> {
  const opts = parseOptions(argv, { output: { required: true, help: "the archive to write (a new .tar.gz file)" } });
  const output = await checkOutput(opts.output ?? "");
  const store: StoreName = config.databaseUrl === null ? "sqlite" : "postgresql";
  if (store === "sqlite" && (await fileSize(sqliteFile(config))) === null) {
    throw new CliError(`there is no database at ${sqliteFile(config)}: run the backup with the server's DATA_DIR (or its DATABASE_URL for PostgreSQL)`);
  }
  const began = Date.now();
  const created = new Date(began).toISOString();
  const staging = await fsp.mkdtemp(path.join(path.dirname(output), `.${path.basename(output)}.staging-`));
  const partial = `${output}.partial-${process.pid}`;
  try {
    const staged = new Set<string>();
    const present = await step("listing the uploads", () => storedFiles(config.uploadsDir));
    say(`taking the ${present.length} stored files of ${config.uploadsDir} (hard links where the output's file system is theirs, else copies)`);
    await step("linking the uploads", () => stageUploads(config, staging, present, staged));
    const contents = await snapshot(config, store, staging);
    say(`database: ${contents.counts.messages} messages, ${contents.counts.users} users, ${contents.counts.uploads} uploads, ${contents.counts.custom_emoji} custom emoji`);
    const missing = await step("linking the uploads", () => settleUploads(config, staging, contents, staged));
    for (const name of missing) say(`warning: ${name} is named by the database but was deleted before it could be copied; the restored server will answer 404 for it`);
    if ((await linkOrCopy(path.join(config.dataDir, "zuliprc"), path.join(staging, ZULIPRC_MEMBER))) === false) say("no zuliprc in DATA_DIR: none is included");
    const list = await step("reading the staged files", () => members(staging, store, staged));
    const { counts, migrations } = contents;
    const manifest = newManifest({ parley_version: PARLEY_VERSION, store, created, external_url: config.externalUrl, migrations, contents: counts, missing_files: missing, members: list });
    say(`writing ${output} (${list.length} files, ${formatBytes(list.reduce((sum, m) => sum + m.bytes, 0))} before compression)`);
    await step("writing the archive", async () => {
      await writeArchive(partial, staging, manifest);
      // A link, unlike a rename, never replaces a file that appeared at the output meanwhile
      // (file systems without hard links get the rename).
      await fsp.link(partial, output).catch(async (err: unknown) => {
        if (err instanceof Error && "code" in err && (err.code === "EPERM" || err.code === "ENOTSUP")) await fsp.rename(partial, output);
        else throw err;
      });
    });
    const bytes = (await fileSize(output)) ?? 0;
    say(`done in ${((Date.now() - began) / 1000).toFixed(1)} s: ${formatBytes(bytes)}`);
    print({ file: output, store, created, bytes, ...counts, missing_files: missing.length });
  } finally {
    await fsp.rm(partial, { force: true });
    await fsp.rm(staging, { recursive: true, force: true });
  }
}

/**
 * `parley restore FILE` and `parley verify-backup FILE`. A restore goes only into an empty
 * target (DATA_DIR, UPLOADS_DIR and, on PostgreSQL, the database), of the store the backup was
 * made of. It reads and checks the whole archive into a staging folder before anything is put
 * in place, puts the files in place, and loads the database last (on PostgreSQL in one
 * transaction): should any step fail, what it put in place is removed and the target is empty again.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Config } from "../config.ts";
import { migrations } from "../store/migrations/index.ts";
import { countRelations, restorePostgres } from "../store/engine/pg-backup.ts";
import { CliError, parseFileArgument } from "./args.ts";
import { readArchive } from "./backup-archive.ts";
import { fileSize, formatBytes, isEmptyDir } from "./backup-files.ts";
import { BACKED_UP_AREAS, DATABASE_MEMBER, UPLOADS_PREFIX, ZULIPRC_MEMBER, type Manifest, type StoreName } from "./backup-manifest.ts";
import { print, warn } from "./terminal.ts";

const STORE_NAMES: Record<StoreName, string> = { sqlite: "SQLite", postgresql: "PostgreSQL" };

/** The archive named on the command line, refused clearly when it is not a readable file. */
async function archiveFile(argv: string[]): Promise<string> {
  const { file } = parseFileArgument(argv, {});
  const source = path.resolve(file);
  const stat = await fsp.stat(source).catch(() => null);
  if (stat === null) throw new CliError(`no such file: ${file}`);
  if (!stat.isFile()) throw new CliError(`not a file: ${file}`);
  return source;
}

/** Refuses a target that holds anything: a restore never mixes two servers' data. */
async function checkEmptyTarget(config: Config): Promise<void> {
  const dirs = [["DATA_DIR", config.dataDir]];
  if (path.relative(config.dataDir, config.uploadsDir).startsWith("..")) dirs.push(["UPLOADS_DIR", config.uploadsDir]);
  for (const [name, dir] of dirs) {
    if (!(await isEmptyDir(dir))) {
      const held = (await fsp.readdir(dir).catch(() => [])).slice(0, 3).join(", ");
      throw new CliError(`${name} (${dir}) is not empty${held ? ` (it holds ${held})` : ""}: a backup is restored only into an empty one; move its contents away or choose another ${name}`);
    }
  }
  if (config.databaseUrl === null) return;
  let relations: number;
  try {
    relations = await countRelations(config.databaseUrl);
  } catch (err) {
    throw new CliError(`could not reach the database at DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (relations > 0) {
    throw new CliError(`the database at DATABASE_URL is not empty (tables, views or sequences: ${relations}): a backup is restored only into an empty database (make one with createdb)`);
  }
}

/** Refuses a backup of the other store, or of a schema newer than this code's. */
function checkRestorable(manifest: Manifest, store: StoreName): void {
  if (manifest.store !== store) {
    const how = store === "postgresql" ? "unset DATABASE_URL to restore it into DATA_DIR" : "set DATABASE_URL to an empty PostgreSQL database";
    throw new CliError(`this is a backup of a ${STORE_NAMES[manifest.store]} store, and this server is set up for ${STORE_NAMES[store]}: ${how} (restoring across stores is not supported)`);
  }
  const known = new Set(Object.keys(migrations(store === "sqlite" ? "sqlite" : "postgres")));
  const unknown = manifest.migrations.find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw new CliError(`this backup's schema is newer than this Parley's (migration ${unknown} is unknown here): restore it with Parley ${manifest.parley_version} or newer`);
  }
}

/** Moves `from` to the new path `to` (copying across file systems); `installed` records it for an undo. */
async function moveInto(from: string, to: string, installed: string[]): Promise<void> {
  await fsp.mkdir(path.dirname(to), { recursive: true });
  installed.push(to);
  try {
    await fsp.rename(from, to);
  } catch (err) {
    if (!(err instanceof Error && "code" in err && err.code === "EXDEV")) throw err;
    await fsp.cp(from, to, { recursive: true, errorOnExist: true, force: false });
  }
}

/** Puts the checked files of `staging` in place, the database last. */
async function install(config: Config, manifest: Manifest, staging: string, installed: string[]): Promise<void> {
  for (const area of BACKED_UP_AREAS) {
    const from = path.join(staging, UPLOADS_PREFIX, area);
    if ((await fileSize(from)) !== null) await moveInto(from, path.join(config.uploadsDir, area), installed);
  }
  if (manifest.members.some((m) => m.path === ZULIPRC_MEMBER)) {
    await moveInto(path.join(staging, ZULIPRC_MEMBER), path.join(config.dataDir, "zuliprc"), installed);
    await fsp.chmod(path.join(config.dataDir, "zuliprc"), 0o600);
  }
  const database = path.join(staging, DATABASE_MEMBER[manifest.store]);
  if (config.databaseUrl === null) await moveInto(database, path.join(config.dataDir, "parley.db"), installed);
  else await restorePostgres(config.databaseUrl, database);
}

/** The backup's own words on what it holds, for both commands' answers. */
function summary(manifest: Manifest): Record<string, unknown> {
  return { store: manifest.store, created: manifest.created, parley_version: manifest.parley_version, external_url: manifest.external_url, ...manifest.contents, missing_files: manifest.missing_files.length };
}

/** `restore FILE`. */
export async function runRestore(argv: string[], config: Config): Promise<void> {
  const say = (message: string) => warn(`restore: ${message}`);
  const source = await archiveFile(argv);
  const store: StoreName = config.databaseUrl === null ? "sqlite" : "postgresql";
  await checkEmptyTarget(config);
  await fsp.mkdir(config.dataDir, { recursive: true });
  const staging = await fsp.mkdtemp(path.join(config.dataDir, ".restore-"));
  const installed: string[] = [];
  try {
    say(`reading and checking ${source} (${formatBytes((await fileSize(source)) ?? 0)})`);
    const manifest = await readArchive(source, {
      onManifest: (m) => {
        checkRestorable(m, store);
        say(`a ${STORE_NAMES[m.store]} backup made ${m.created} by Parley ${m.parley_version} of ${m.external_url}: ${m.members.length} files`);
      },
      onMember: async (member, body) => {
        const dest = path.join(staging, member.path);
        await fsp.mkdir(path.dirname(dest), { recursive: true });
        await pipeline(Readable.from(body), fs.createWriteStream(dest, { flags: "wx" }));
      },
    });
    say(`every file matches the manifest; restoring the ${STORE_NAMES[store]} database and ${manifest.contents.uploads + manifest.contents.custom_emoji} stored files`);
    await install(config, manifest, staging, installed).catch((err: unknown) => {
      throw err instanceof CliError ? err : new CliError(`the restore failed and was undone: ${err instanceof Error ? err.message : String(err)}`);
    });
    for (const name of manifest.missing_files) say(`warning: ${name} was deleted while the backup was taken; the server will answer 404 for it`);
    if (manifest.external_url !== config.externalUrl) say(`note: the backed-up server ran at EXTERNAL_URL=${manifest.external_url} (here it is ${config.externalUrl}): start the server with it, so addresses and links stay the same`);
    say("done: start the server with the backed-up server's settings (npx parley)");
    print({ restored: source, ...summary(manifest) });
  } catch (err) {
    for (const p of installed.reverse()) await fsp.rm(p, { recursive: true, force: true });
    throw err;
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
}

/** `verify-backup FILE`: reads the whole archive and checks every file against the manifest, writing nothing. */
export async function runVerifyBackup(argv: string[]): Promise<void> {
  const source = await archiveFile(argv);
  const manifest = await readArchive(source, {
    onManifest: () => undefined,
    onMember: async (_member, body) => {
      for await (const chunk of body) void chunk;
    },
  });
  warn(`verify-backup: ${source}: every file matches the manifest`);
  print({ file: source, ...summary(manifest), files: manifest.members.length });
}

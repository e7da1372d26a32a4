/**
 * Writes a Zulip organization export directory in upstream's layout (zerver/lib/export.py):
 * realm.json (the organization's tables), messages-NNNNNN.json (one chunk of messages and their
 * UserMessage rows each), attachment.json, the stored files under uploads/, avatars/, emoji/ and
 * realm_icons/ with each folder's records.json, stats.json (row counts) and
 * migration_status.json (the schema the rows follow). Rows are written as they come: the caller
 * decides what goes in (this module knows the layout, not the database), and nothing here grows
 * with the number of messages. `packTarGz` makes the tarball upstream hands out.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { tarStream, type TarFile } from "../tar.ts";
import { linkOrCopy } from "../link-or-copy.ts";
import type { FileArea } from "./export-reader.ts";
import { JsonTablesFile, writeJsonFile, type RowSource } from "./json-writer.ts";
import { WRITTEN_MIGRATION_STATUS } from "./version.ts";

const AREAS: readonly FileArea[] = ["uploads", "avatars", "emoji", "realm_icons"];

/** A message file's name: messages-000001.json for the first. */
export function messageFileName(n: number): string {
  return `messages-${String(n).padStart(6, "0")}.json`;
}

/** A Zulip export being written into a directory. */
export class ZulipExportWriter {
  #messageFiles = 0;
  #finished = false;
  readonly #records = new Map<FileArea, object[]>(AREAS.map((a) => [a, []]));
  readonly #stats: Record<string, unknown> = {};

  private constructor(
    /** The export's directory (the tarball's one top folder). */
    readonly dir: string,
    readonly zulipVersion: string,
  ) {}

  /** Starts an export in `dir`, which must be new or empty. */
  static async create(dir: string, zulipVersion: string = WRITTEN_MIGRATION_STATUS.zulip_version): Promise<ZulipExportWriter> {
    await fsp.mkdir(dir, { recursive: true });
    if ((await fsp.readdir(dir)).length > 0) throw new Error(`${dir} is not empty: an export is written into a new directory`);
    return new ZulipExportWriter(dir, zulipVersion);
  }

  #check(): void {
    if (this.#finished) throw new Error("the export is already finished");
  }

  /** Messages files written so far. */
  get messageFiles(): number {
    return this.#messageFiles;
  }

  /** realm.json: each table in turn, its rows streamed from its source. */
  async writeRealm(tables: Record<string, RowSource>): Promise<void> {
    this.#check();
    this.#stats.realm = await writeTablesFile(path.join(this.dir, "realm.json"), tables);
  }

  /** The next messages-NNNNNN.json: a chunk of messages (upstream's are 1,000) and their UserMessage rows. */
  async writeMessages(messages: object[], userMessages: object[]): Promise<void> {
    this.#check();
    this.#messageFiles += 1;
    const name = messageFileName(this.#messageFiles);
    await writeTablesFile(path.join(this.dir, name), { zerver_message: messages, zerver_usermessage: userMessages });
    this.#stats[name.replace(/\.json$/, "")] = { zerver_message: messages.length, zerver_usermessage: userMessages.length };
  }

  /**
   * Copies a stored file to `<area>/<relativePath>` and keeps its record for the area's
   * records.json (`path` and `s3_path` are set to the relative path, `size` to the file's).
   */
  async addFile(area: FileArea, relativePath: string, sourceFile: string, record: object): Promise<void> {
    this.#check();
    const base = path.join(this.dir, area);
    const target = path.resolve(base, relativePath);
    if (!target.startsWith(base + path.sep)) throw new Error(`unsafe path in ${area}: ${JSON.stringify(relativePath)}`);
    // A hard link where it can (the tarball is packed from it, then the work folder removed): an
    // export of many gigabytes of uploads does not hold them twice before the tarball.
    if (!(await linkOrCopy(sourceFile, target))) throw new Error(`${sourceFile} is missing: its ${area} file cannot be exported`);
    const size = (await fsp.stat(target)).size;
    this.#records.get(area)!.push({ ...record, path: relativePath, s3_path: relativePath, size });
  }

  /** attachment.json: the uploads' Attachment rows. */
  async writeAttachments(rows: RowSource): Promise<void> {
    this.#check();
    this.#stats.attachment = await writeTablesFile(path.join(this.dir, "attachment.json"), { zerver_attachment: rows });
  }

  /** Writes each area's records.json, stats.json and migration_status.json; nothing can be added after. */
  async finish(): Promise<void> {
    this.#check();
    this.#finished = true;
    if (this.#stats.realm === undefined) throw new Error("an export needs its realm.json");
    if (this.#stats.attachment === undefined) await writeTablesFile(path.join(this.dir, "attachment.json"), { zerver_attachment: [] });
    for (const [area, records] of this.#records) {
      await fsp.mkdir(path.join(this.dir, area), { recursive: true });
      await writeJsonFile(path.join(this.dir, area, "records.json"), records);
      this.#stats[`${area}_records`] = records.length;
    }
    await writeJsonFile(path.join(this.dir, "stats.json"), this.#stats);
    await writeJsonFile(path.join(this.dir, "migration_status.json"), { zulip_version: this.zulipVersion, migrations_by_app: WRITTEN_MIGRATION_STATUS.migrations_by_app });
  }
}

async function writeTablesFile(file: string, tables: Record<string, RowSource>): Promise<Record<string, number>> {
  const out = await JsonTablesFile.create(file);
  try {
    for (const [name, rows] of Object.entries(tables)) await out.table(name, rows);
  } finally {
    await out.close();
  }
  return Object.fromEntries(out.counts);
}

/** Every regular file under `dir`, as paths relative to it, sorted (so an archive's order is stable). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * Packs `dir`'s contents into `outputFile` (new) as a gzip-compressed tar, every file under one
 * top folder named as `dir` is, as upstream's tarballs unpack to `zulip-export-.../`.
 */
export async function packTarGz(dir: string, outputFile: string): Promise<void> {
  const top = path.basename(path.resolve(dir));
  const names = await filesUnder(dir);
  async function* files(): AsyncGenerator<TarFile> {
    for (const name of names) {
      const full = path.join(dir, name);
      const { size } = await fsp.stat(full);
      yield { name: `${top}/${name.split(path.sep).join("/")}`, size, body: fs.createReadStream(full) };
    }
  }
  await pipeline(Readable.from(tarStream(files(), Math.floor(Date.now() / 1000))), zlib.createGzip(), fs.createWriteStream(outputFile, { flags: "wx" }));
}

/**
 * Reads a Zulip organization export (`manage.py export`): a .tar.gz, unpacked first into a work
 * directory, or an unpacked directory. realm.json and attachment.json are read table by table
 * (json-tables.ts), each messages-NNNNNN.json whole but one at a time, so memory follows the
 * exporter's chunk size (1,000 messages) and not the history's length. Every row is checked
 * against its schema (rows.ts) as it is read; the reader refuses, with ImportRefusedError, an
 * export whose files are missing, cut short or malformed.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { ImportRefusedError } from "../../errors.ts";
import { indexTables, tableRows, type ByteRange } from "./json-tables.ts";
import { extractTarGz, type ExtractProgress } from "./tar-extract.ts";
import { checkExportVersion, type ExportVersion } from "./version.ts";
import { fileRecordRow, messageRow, userMessageRow, type Row } from "./rows.ts";

/** The JSON files of tables. */
type TableFile = "realm" | "attachment";

/** The folders of stored files, each with its records.json. */
export type FileArea = "uploads" | "avatars" | "emoji" | "realm_icons";

/** One messages-NNNNNN.json, parsed and checked. */
export type MessageBatch = { file: string; messages: Array<Row<typeof messageRow>>; userMessages: Array<Row<typeof userMessageRow>> };

const MESSAGE_FILE = /^messages-(\d{6})\.json$/;

async function isDirectory(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isDirectory() === true;
}

/** The folder holding realm.json: the given one, or its only subfolder (tarballs unpack to `<name>/`). */
async function exportRoot(dir: string): Promise<string> {
  if (fs.existsSync(path.join(dir, "realm.json"))) return dir;
  const entries = (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory());
  if (entries.length === 1 && fs.existsSync(path.join(dir, entries[0].name, "realm.json"))) return path.join(dir, entries[0].name);
  throw new ImportRefusedError("realm.json is missing: this is not a Zulip organization export");
}

/** `value` as `schema` reads it, or an ImportRefusedError naming `where` and the first field amiss. */
export function parseRow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.length > 0 ? `'${issue.path.join(".")}'` : "the row";
  throw new ImportRefusedError(`${where}: ${field} is missing or malformed (${issue.message})`);
}

async function readJsonFile(file: string, label: string): Promise<unknown> {
  try {
    return JSON.parse(await fsp.readFile(file, "utf8"));
  } catch (err) {
    if (err instanceof SyntaxError) throw new ImportRefusedError(`${label} is not valid JSON (truncated or damaged)`);
    throw err;
  }
}

/** An opened export: its version, its tables, its message files and its stored files. */
export class ZulipExport {
  readonly #indexes = new Map<TableFile, Map<string, ByteRange>>();
  readonly #read = new Set<string>();

  private constructor(
    readonly root: string,
    readonly version: ExportVersion,
    readonly messageFiles: readonly string[],
    readonly expectedCounts: ReadonlyMap<string, { messages: number; userMessages: number }>,
  ) {}

  /**
   * Opens `source` (a .tar.gz, unpacked into `workDir`, or a directory): checks the version in
   * migration_status.json and that every messages file stats.json lists is there.
   */
  static async open(source: string, workDir: string, progress?: ExtractProgress): Promise<ZulipExport> {
    if (!fs.existsSync(source)) throw new ImportRefusedError(`${source} does not exist`);
    let dir = source;
    if (!(await isDirectory(source))) {
      await extractTarGz(source, workDir, progress);
      dir = workDir;
    }
    const root = await exportRoot(dir);
    const statusFile = path.join(root, "migration_status.json");
    if (!fs.existsSync(statusFile)) throw new ImportRefusedError("migration_status.json is missing: the export's Zulip version cannot be known");
    const version = checkExportVersion(await readJsonFile(statusFile, "migration_status.json"));
    const { names, counts } = await listMessageFiles(root);
    return new ZulipExport(root, version, names, counts);
  }

  async #index(file: TableFile): Promise<Map<string, ByteRange>> {
    let index = this.#indexes.get(file);
    if (!index) {
      const full = path.join(this.root, `${file}.json`);
      if (!fs.existsSync(full)) {
        if (file === "realm") throw new ImportRefusedError("realm.json is missing");
        index = new Map();
      } else {
        index = await indexTables(full, `${file}.json`);
      }
      this.#indexes.set(file, index);
    }
    return index;
  }

  /** Whether the file holds the table (under any of its names). */
  async has(file: TableFile, table: string): Promise<boolean> {
    return (await this.#index(file)).has(table);
  }

  /** The rows of a table, checked against `schema`, one at a time; a table the export lacks has none. */
  async *rows<S extends z.ZodType>(file: TableFile, table: string, schema: S): AsyncGenerator<z.output<S>> {
    const range = (await this.#index(file)).get(table);
    this.#read.add(`${file}:${table}`);
    if (!range) return;
    const full = path.join(this.root, `${file}.json`);
    let n = 0;
    for await (const value of tableRows(full, `${file}.json`, table, range)) {
      n += 1;
      yield parseRow(schema, value, `${file}.json: row ${n} of ${table}`);
    }
  }

  /** All rows of a table (for the small ones: realm settings, users, channels, groups). */
  async all<S extends z.ZodType>(file: TableFile, table: string, schema: S): Promise<Array<z.output<S>>> {
    const out: Array<z.output<S>> = [];
    for await (const row of this.rows(file, table, schema)) out.push(row);
    return out;
  }

  /** The tables of realm.json and attachment.json the caller has not read (what this import leaves aside). */
  async unreadTables(): Promise<string[]> {
    const out: string[] = [];
    for (const file of ["realm", "attachment"] as const) {
      for (const table of (await this.#index(file)).keys()) if (!this.#read.has(`${file}:${table}`)) out.push(table);
    }
    return out;
  }

  /** The message files, one at a time, each parsed whole and checked. */
  async *messageBatches(): AsyncGenerator<MessageBatch> {
    for (const name of this.messageFiles) {
      const data = await readJsonFile(path.join(this.root, name), name);
      const record = data !== null && typeof data === "object" ? (data as Record<string, unknown>) : {};
      const messages = record.zerver_message;
      const userMessages = record.zerver_usermessage;
      if (!Array.isArray(messages) || !Array.isArray(userMessages)) throw new ImportRefusedError(`${name} lacks its zerver_message or zerver_usermessage list`);
      const expected = this.expectedCounts.get(name);
      if (expected && (expected.messages !== messages.length || expected.userMessages !== userMessages.length)) {
        throw new ImportRefusedError(`${name} holds ${messages.length} messages and ${userMessages.length} user messages; stats.json says ${expected.messages} and ${expected.userMessages}`);
      }
      yield {
        file: name,
        messages: messages.map((m, i) => parseRow(messageRow, m, `${name}: message ${i + 1}`)),
        userMessages: userMessages.map((m, i) => parseRow(userMessageRow, m, `${name}: user message ${i + 1}`)),
      };
    }
  }

  /** A folder's records.json (what each stored file is), or none. */
  async records(area: FileArea): Promise<Array<Row<typeof fileRecordRow>>> {
    const file = path.join(this.root, area, "records.json");
    if (!fs.existsSync(file)) return [];
    const data = await readJsonFile(file, `${area}/records.json`);
    if (!Array.isArray(data)) throw new ImportRefusedError(`${area}/records.json is not a list`);
    return data.map((r, i) => parseRow(fileRecordRow, r, `${area}/records.json: record ${i + 1}`));
  }

  /** Where a stored file is, or an error when it is missing or its path would leave its folder. */
  storedFile(area: FileArea, relative: string): string {
    const base = path.join(this.root, area);
    const full = path.resolve(base, relative);
    if (!full.startsWith(base + path.sep)) throw new ImportRefusedError(`${area}/records.json names an unsafe path: ${JSON.stringify(relative)}`);
    if (!fs.existsSync(full)) throw new ImportRefusedError(`${area}/${relative} is missing from the export`);
    return full;
  }
}

/**
 * The messages files, in order, with the row counts stats.json gives for each. They must be
 * numbered from 000001 without a gap, and every one stats.json lists (the exporter writes it
 * last) must be there.
 */
async function listMessageFiles(root: string): Promise<{ names: string[]; counts: Map<string, { messages: number; userMessages: number }> }> {
  const names = (await fsp.readdir(root)).filter((n) => MESSAGE_FILE.test(n)).sort();
  names.forEach((name, i) => {
    const expected = `messages-${String(i + 1).padStart(6, "0")}.json`;
    if (name !== expected) throw new ImportRefusedError(`${expected} is missing from the export (found ${name})`);
  });
  const counts = new Map<string, { messages: number; userMessages: number }>();
  const statsFile = path.join(root, "stats.json");
  if (!fs.existsSync(statsFile)) return { names, counts };
  const stats = await readJsonFile(statsFile, "stats.json");
  const entries = stats !== null && typeof stats === "object" ? Object.entries(stats).filter(([k]) => /^messages-\d{6}$/.test(k)) : [];
  for (const [key, value] of entries) {
    if (!names.includes(`${key}.json`)) throw new ImportRefusedError(`${key}.json is missing from the export (stats.json lists it)`);
    const record = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
    if (typeof record.zerver_message === "number" && typeof record.zerver_usermessage === "number") {
      counts.set(`${key}.json`, { messages: record.zerver_message, userMessages: record.zerver_usermessage });
    }
  }
  return { names, counts };
}

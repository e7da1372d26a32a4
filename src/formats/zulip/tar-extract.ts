/**
 * Unpacks a .tar.gz into a directory as it streams through (memory does not grow with the
 * archive). Only regular files and directories are taken: links, devices and paths that would
 * leave the directory are refused, as are a truncated gzip stream, a tar entry cut short and an
 * archive without tar's end marker (two zero blocks): a truncated export is never half-read.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { ImportRefusedError } from "../../errors.ts";

const BLOCK = 512;

/** What the caller hears as the archive unpacks. */
export type ExtractProgress = (entry: { name: string; bytes: number }) => void;

/** A tar header's fields this reader uses. */
type Header = { name: string; size: number; type: string };

function field(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
}

function octal(block: Buffer, start: number, length: number): number {
  const text = field(block, start, length).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new ImportRefusedError("the archive is not a tar file (a header's number is unreadable)");
  return parseInt(text, 8);
}

function checksumMatches(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
  return sum === octal(block, 148, 8);
}

function parseHeader(block: Buffer): Header {
  if (!checksumMatches(block)) throw new ImportRefusedError("the archive is not a tar file (a header's checksum is wrong)");
  const name = field(block, 0, 100);
  const prefix = field(block, 257, 6).startsWith("ustar") ? field(block, 345, 155) : "";
  return { name: prefix === "" ? name : `${prefix}/${name}`, size: octal(block, 124, 12), type: field(block, 156, 1) || "0" };
}

/** PAX extended header records (`<len> key=value\n`): the path, when one is given. */
function paxPath(data: Buffer): string | undefined {
  let found: string | undefined;
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number(data.subarray(at, space).toString("ascii"));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    if (record.startsWith("path=")) found = record.slice(5);
    at += length;
  }
  return found;
}

/** The entry's path inside `root`, or an error for one that would leave it. */
function safeTarget(root: string, name: string): string {
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (name.startsWith("/") || parts.some((p) => p === ".." || p.includes("\\") || p.includes("\0"))) {
    throw new ImportRefusedError(`the archive holds an unsafe path: ${JSON.stringify(name)}`);
  }
  return path.join(root, ...parts);
}

/** Streams tar entries out of decompressed chunks: headers, then each file's bytes to disk. */
class TarWriter {
  #pending: Buffer = Buffer.alloc(0);
  #entry: { header: Header; left: number; padding: number; file: fs.promises.FileHandle | null; data: Buffer[] | null } | null = null;
  #longName: string | undefined;
  #ended = false;

  constructor(
    readonly root: string,
    readonly progress: ExtractProgress | undefined,
  ) {}

  get ended(): boolean {
    return this.#ended;
  }

  async push(chunk: Buffer): Promise<void> {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (!this.#ended) {
      if (this.#entry) {
        if (!(await this.#feedEntry())) return;
        continue;
      }
      if (this.#pending.length < BLOCK) return;
      const block = this.#pending.subarray(0, BLOCK);
      this.#pending = this.#pending.subarray(BLOCK);
      if (block.every((b) => b === 0)) {
        // The end marker: two zero blocks (what follows is padding to the record size).
        this.#ended = true;
        return;
      }
      await this.#startEntry(parseHeader(block));
    }
  }

  async #startEntry(header: Header): Promise<void> {
    const padding = (BLOCK - (header.size % BLOCK)) % BLOCK;
    const name = this.#longName ?? header.name;
    this.#longName = undefined;
    const named = { ...header, name };
    if (header.type === "L" || header.type === "x") {
      this.#entry = { header: named, left: header.size, padding, file: null, data: [] };
    } else if (header.type === "0" || header.type === "7") {
      const target = safeTarget(this.root, name);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      this.#entry = { header: named, left: header.size, padding, file: await fsp.open(target, "wx"), data: null };
    } else if (header.type === "5") {
      await fsp.mkdir(safeTarget(this.root, name), { recursive: true });
      this.#entry = { header: named, left: header.size, padding, file: null, data: null };
    } else if (header.type === "g") {
      this.#entry = { header: named, left: header.size, padding, file: null, data: null };
    } else {
      throw new ImportRefusedError(`the archive holds ${JSON.stringify(name)}, which is not a regular file or directory (tar type '${header.type}')`);
    }
  }

  /** Writes what has arrived of the current entry; true once it (and its padding) is done. */
  async #feedEntry(): Promise<boolean> {
    const entry = this.#entry;
    if (!entry) return true;
    if (entry.left > 0) {
      const take = Math.min(entry.left, this.#pending.length);
      const part = this.#pending.subarray(0, take);
      this.#pending = this.#pending.subarray(take);
      entry.left -= take;
      if (entry.file) await entry.file.write(part);
      else entry.data?.push(Buffer.from(part));
      if (entry.left > 0) return false;
    }
    if (this.#pending.length < entry.padding) return false;
    this.#pending = this.#pending.subarray(entry.padding);
    this.#entry = null;
    await this.#finishEntry(entry.header, entry.file, entry.data);
    return true;
  }

  async #finishEntry(header: Header, file: fs.promises.FileHandle | null, data: Buffer[] | null): Promise<void> {
    if (file) {
      await file.close();
      this.progress?.({ name: header.name, bytes: header.size });
    }
    if (header.type === "L" && data) this.#longName = Buffer.concat(data).toString("utf8").replace(/\0+$/, "");
    if (header.type === "x" && data) this.#longName = paxPath(Buffer.concat(data));
  }

  /** Closes a file left open by an archive cut short. */
  async abandon(): Promise<void> {
    await this.#entry?.file?.close();
    this.#entry = null;
  }
}

/**
 * Unpacks `tarball` (gzip-compressed tar) into `destination`, which must be empty or absent.
 * Throws ImportRefusedError for anything but a whole, well-formed archive.
 */
export async function extractTarGz(tarball: string, destination: string, progress?: ExtractProgress): Promise<void> {
  await fsp.mkdir(destination, { recursive: true });
  const writer = new TarWriter(destination, progress);
  const gunzip = fs.createReadStream(tarball).pipe(zlib.createGunzip());
  try {
    for await (const chunk of gunzip) {
      if (!writer.ended) await writer.push(chunk as Buffer);
    }
  } catch (err) {
    await writer.abandon();
    if (err instanceof ImportRefusedError) throw err;
    const code = err instanceof Error && "code" in err ? String(err.code) : "";
    if (code === "Z_BUF_ERROR" || code === "Z_DATA_ERROR" || code === "ERR_STREAM_PREMATURE_CLOSE") {
      throw new ImportRefusedError(`${path.basename(tarball)} is not a whole gzip file (truncated or damaged: ${err instanceof Error ? err.message : String(err)})`);
    }
    throw err;
  }
  if (!writer.ended) {
    await writer.abandon();
    throw new ImportRefusedError(`${path.basename(tarball)} ends in the middle of its tar archive (truncated)`);
  }
}

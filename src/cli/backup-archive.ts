/**
 * A backup archive on disk: a gzip-compressed tar (tar.ts) whose first file is the manifest
 * (backup-manifest.ts) and whose others are the files it lists, each checked against the
 * manifest's size and SHA-256 as it is read. A reader that finds anything wrong stops with a
 * CliError that says what: not a gzip file, cut off, a file altered or missing.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { CliError } from "./args.ts";
import { MANIFEST_NAME, MAX_MANIFEST_BYTES, parseManifest, type Manifest, type Member } from "./backup-manifest.ts";
import { readTar, TarError, tarStream, type TarFile } from "../formats/tar.ts";

/** Owner read and write only: a backup holds API keys and password hashes. */
const ARCHIVE_MODE = 0o600;

/** Writes the archive of `manifest`, its members read from `staging` (where each lies at its path), to the new file `output`. */
export async function writeArchive(output: string, staging: string, manifest: Manifest): Promise<void> {
  const mtime = Math.floor(Date.parse(manifest.created) / 1000);
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 1) + "\n");
  const files = function* (): Generator<TarFile> {
    yield { name: MANIFEST_NAME, size: manifestBytes.length, body: manifestBytes };
    for (const m of manifest.members) yield { name: m.path, size: m.bytes, body: fs.createReadStream(path.join(staging, m.path)) };
  };
  await pipeline(Readable.from(tarStream(files(), mtime)), zlib.createGzip(), fs.createWriteStream(output, { flags: "wx", mode: ARCHIVE_MODE }));
  // On disk before the caller renames it into place.
  const handle = await fsp.open(output, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** What reading an archive does with it: checks its manifest first, then takes each member's bytes (all of them). */
export type ArchiveReader = {
  onManifest(manifest: Manifest): Promise<void> | void;
  onMember(member: Member, body: AsyncIterable<Buffer>): Promise<void>;
};

/** Why reading failed, in the operator's words. */
function explain(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof TarError) return new CliError(`the archive is damaged: ${err.message}`);
  const code = err instanceof Error && "code" in err ? String(err.code) : "";
  if (code === "Z_BUF_ERROR") return new CliError("the archive is damaged: its compressed data ends too soon (truncated?)");
  if (code.startsWith("Z_")) return new CliError(`not a gzip file, or a damaged one (${err instanceof Error ? err.message : code}): not a readable Parley backup`);
  return new CliError(`could not read the archive: ${err instanceof Error ? err.message : String(err)}`);
}

async function readManifest(body: AsyncIterable<Buffer>, size: number): Promise<Manifest> {
  if (size > MAX_MANIFEST_BYTES) throw new CliError("not a Parley backup: its manifest.json is implausibly large");
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk);
  return parseManifest(Buffer.concat(parts).toString("utf8"));
}

/** Hashes and counts a member's bytes as they pass; `done()` compares them with the manifest. */
function checked(member: Member, body: AsyncIterable<Buffer>): { body: AsyncIterable<Buffer>; done(): void } {
  const hash = crypto.createHash("sha256");
  let bytes = 0;
  return {
    body: (async function* () {
      for await (const chunk of body) {
        hash.update(chunk);
        bytes += chunk.length;
        yield chunk;
      }
    })(),
    done() {
      if (bytes !== member.bytes || hash.digest("hex") !== member.sha256) throw new CliError(`the archive is damaged: ${member.path} does not match its checksum in the manifest`);
    },
  };
}

/** Reads and checks the archive `file`, handing its manifest and members to `reader`; returns the manifest. */
export async function readArchive(file: string, reader: ArchiveReader): Promise<Manifest> {
  const input = fs.createReadStream(file);
  const gunzip = zlib.createGunzip();
  input.once("error", (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    let manifest: Manifest | null = null;
    const expected = new Map<string, Member>();
    for await (const entry of readTar(gunzip)) {
      if (manifest === null) {
        if (entry.name !== MANIFEST_NAME) throw new CliError(`not a Parley backup: it starts with ${JSON.stringify(entry.name)}, not ${MANIFEST_NAME}`);
        manifest = await readManifest(entry.body, entry.size);
        for (const m of manifest.members) expected.set(m.path, m);
        await reader.onManifest(manifest);
        continue;
      }
      const member = expected.get(entry.name);
      if (!member) throw new CliError(`the archive holds ${JSON.stringify(entry.name)}, which its manifest does not list (twice, or not at all)`);
      expected.delete(entry.name);
      const check = checked(member, entry.body);
      await reader.onMember(member, check.body);
      check.done();
    }
    if (manifest === null) throw new CliError("not a Parley backup: the archive is empty");
    if (expected.size > 0) throw new CliError(`the archive is incomplete: ${expected.size} file(s) its manifest lists are missing, such as ${[...expected.keys()][0]}`);
    return manifest;
  } catch (err) {
    throw explain(err);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/**
 * Unpacks a .zip (a Slack export as Slack's "Export data" page gives it) into a directory, one
 * entry at a time, with yauzl: it reads the archive's central directory and streams each entry,
 * so memory does not grow with the archive, and it refuses entry names that are absolute or
 * climb out (`..`). Only files and folders are written; a damaged or truncated archive is
 * refused with ImportRefusedError.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { ImportRefusedError } from "../../errors.ts";

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true, strictFileNames: false, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) reject(new ImportRefusedError(`${path.basename(file)} is not a readable zip archive (${err?.message ?? "no entries"})`));
      else resolve(zip);
    });
  });
}

function entryStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err || !stream ? reject(new ImportRefusedError(`${entry.fileName} cannot be read from the archive (${err?.message})`)) : resolve(stream)));
  });
}

/** Unpacks `file` into `dir` (which exists); returns the number of files written. */
export async function unzipInto(file: string, dir: string): Promise<number> {
  const zip = await openZip(file);
  const root = path.resolve(dir);
  let files = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (err: unknown) => {
      zip.close();
      reject(err instanceof ImportRefusedError ? err : new ImportRefusedError(`the zip archive is damaged or truncated (${err instanceof Error ? err.message : String(err)})`));
    };
    zip.on("error", fail);
    zip.on("end", () => resolve());
    zip.on("entry", (entry: yauzl.Entry) => {
      const target = path.resolve(root, entry.fileName);
      if (target !== root && !target.startsWith(root + path.sep)) return fail(new ImportRefusedError(`the archive names an unsafe path: ${JSON.stringify(entry.fileName)}`));
      const isDir = entry.fileName.endsWith("/");
      const write = async () => {
        if (isDir) {
          await fsp.mkdir(target, { recursive: true });
          return;
        }
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await pipeline(await entryStream(zip, entry), fs.createWriteStream(target, { flags: "wx" }));
        files += 1;
      };
      write().then(() => zip.readEntry(), fail);
    });
    zip.readEntry();
  });
  return files;
}

/**
 * A JSON-lines file read a line at a time, with each line's byte offset so that a line can be
 * read again later on its own (a bulk export's posts are read once to index them and again, in
 * time order, to stream them). Blank lines are skipped; a line that is not a JSON object, or
 * the file ending inside a line's bytes (a truncated UTF-8 sequence), is refused.
 */
import fs from "node:fs";
import { ImportRefusedError } from "../../errors.ts";

export type JsonLine = { lineNo: number; offset: number; length: number; value: Record<string, unknown> };

const CHUNK = 1 << 20;

export function parseJsonLine(bytes: Buffer, label: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ImportRefusedError(`${label} is not valid JSON (a damaged or truncated export)`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ImportRefusedError(`${label} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Every non-blank line of `file`, parsed, with where it is. */
export async function* jsonLines(file: string, name: string): AsyncGenerator<JsonLine> {
  const handle = await fs.promises.open(file, "r");
  try {
    let pending: Buffer = Buffer.alloc(0);
    let pendingOffset = 0;
    let lineNo = 0;
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      const data: Buffer = bytesRead === 0 ? Buffer.from("\n") : Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
      const all = bytesRead === 0 ? Buffer.concat([pending, data]) : data;
      let start = 0;
      for (let nl = all.indexOf(0x0a); nl >= 0; nl = all.indexOf(0x0a, start)) {
        lineNo++;
        const bytes = all.subarray(start, nl);
        if (bytes.toString("latin1").trim() !== "") {
          yield { lineNo, offset: pendingOffset + start, length: bytes.length, value: parseJsonLine(bytes, `${name} line ${lineNo}`) };
        }
        start = nl + 1;
      }
      if (bytesRead === 0) return;
      pending = Buffer.from(all.subarray(start));
      pendingOffset += start;
    }
  } finally {
    await handle.close();
  }
}

/** Reads lines again by their offsets, from one open file. */
export class LineReader {
  private constructor(private readonly handle: fs.promises.FileHandle, private readonly name: string) {}

  static async open(file: string, name: string): Promise<LineReader> {
    return new LineReader(await fs.promises.open(file, "r"), name);
  }

  async read(line: Pick<JsonLine, "lineNo" | "offset" | "length">): Promise<Record<string, unknown>> {
    const bytes = Buffer.alloc(line.length);
    await this.handle.read(bytes, 0, line.length, line.offset);
    return parseJsonLine(bytes, `${this.name} line ${line.lineNo}`);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

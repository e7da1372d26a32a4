/**
 * Reads an export's JSON files table by table without holding a file whole: Zulip writes each
 * file as one object of tables (`{"zerver_stream": [...], ...}`), and realm.json alone can hold
 * hundreds of thousands of rows (reactions, subscriptions, the audit log). `indexTables` scans a
 * file once for where each table's value lies; `tableRows` then parses that table one row at a
 * time. The scan works on bytes: JSON's structural characters are ASCII, and UTF-8 never uses an
 * ASCII byte inside a multi-byte character.
 */
import fs from "node:fs";
import { ImportRefusedError } from "../../errors.ts";

/** Where a top-level value lies in its file: bytes [start, end). */
export type ByteRange = { start: number; end: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Tracks strings and nesting over a byte stream; `step` returns the depth before the byte. */
class Scanner {
  depth = 0;
  inString = false;
  #escaped = false;

  /** Advances over one byte; returns whether it is structural (outside any string, quote excluded). */
  step(byte: number): boolean {
    if (this.inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) this.inString = false;
      return false;
    }
    if (byte === QUOTE) {
      this.inString = true;
      return false;
    }
    if (OPEN.has(byte)) this.depth += 1;
    else if (CLOSE.has(byte)) this.depth -= 1;
    return true;
  }
}

function broken(file: string, what: string): ImportRefusedError {
  return new ImportRefusedError(`${file} is not a whole JSON object of tables (${what})`);
}

/** Scans a file for its top-level keys and the byte range of each one's value. */
export async function indexTables(file: string, label: string): Promise<Map<string, ByteRange>> {
  const out = new Map<string, ByteRange>();
  const scan = new Scanner();
  let offset = 0;
  let key: number[] | null = null;
  let pendingKey: string | null = null;
  let valueStart = -1;
  let valueKey: string | null = null;
  let started = false;
  let closed = false;
  const finishValue = (end: number) => {
    if (valueKey !== null) out.set(valueKey, { start: valueStart, end });
    valueKey = null;
    valueStart = -1;
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes = chunk as Buffer;
    for (let i = 0; i < bytes.length; i++, offset++) {
      const byte = bytes[i];
      const depthBefore = scan.depth;
      const wasInString = scan.inString;
      const structural = scan.step(byte);
      if (closed) {
        if (!isSpace(byte)) throw broken(label, "text after its end");
        continue;
      }
      if (!started) {
        if (isSpace(byte)) continue;
        if (byte !== 0x7b) throw broken(label, "it does not start with '{'");
        started = true;
        continue;
      }
      if (depthBefore === 1 && valueKey === null) {
        // Between values: a key (collected as it streams), its colon, then a value's first byte.
        if (key !== null) {
          if (scan.inString) key.push(byte);
          else {
            pendingKey = Buffer.from(key).toString("utf8");
            key = null;
          }
          continue;
        }
        if (!wasInString && byte === QUOTE && pendingKey === null) {
          key = [];
          continue;
        }
        if (structural && byte === COLON && pendingKey !== null) continue;
        if (structural && (byte === COMMA || isSpace(byte))) continue;
        if (structural && byte === 0x7d && scan.depth === 0) {
          closed = true;
          continue;
        }
        if (pendingKey === null) throw broken(label, "a value without its key");
        valueKey = pendingKey;
        pendingKey = null;
        valueStart = offset;
        continue;
      }
      if (valueKey !== null && !scan.inString) {
        // A container ends when the depth is back to 1; a scalar at the next ',' or '}' at depth 1.
        if (scan.depth === 1 && structural && CLOSE.has(byte) && depthBefore === 2) finishValue(offset + 1);
        else if (depthBefore === 1 && structural && (byte === COMMA || (byte === 0x7d && scan.depth === 0))) {
          finishValue(offset);
          if (byte === 0x7d) closed = true;
        }
      }
    }
  }
  if (!closed) throw broken(label, "it ends before its closing '}'");
  return out;
}

/**
 * The rows of one table (an array value at `range`), parsed one at a time as the file is read.
 * A value that is not an array, or an element that is not JSON, throws ImportRefusedError.
 */
export async function* tableRows(file: string, label: string, table: string, range: ByteRange): AsyncGenerator<unknown> {
  const scan = new Scanner();
  let parts: Buffer[] = [];
  let inElement = false;
  let first = true;
  let done = false;
  for await (const chunk of fs.createReadStream(file, { start: range.start, end: range.end - 1, highWaterMark: 1 << 20 })) {
    const bytes = chunk as Buffer;
    let sliceStart = inElement ? 0 : -1;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (first) {
        if (byte !== 0x5b) throw new ImportRefusedError(`${label}: ${table} is not a list`);
        first = false;
        scan.step(byte);
        continue;
      }
      const depthBefore = scan.depth;
      const structural = scan.step(byte);
      if (done) continue;
      if (depthBefore === 1 && structural && (byte === COMMA || (byte === 0x5d && scan.depth === 0))) {
        if (sliceStart >= 0) parts.push(bytes.subarray(sliceStart, i));
        if (parts.length > 0) yield parseElement(parts, label, table);
        parts = [];
        inElement = false;
        sliceStart = -1;
        if (byte === 0x5d) done = true;
        continue;
      }
      if (sliceStart < 0 && !isSpace(byte)) {
        sliceStart = i;
        inElement = true;
      }
    }
    if (sliceStart >= 0) parts.push(Buffer.from(bytes.subarray(sliceStart)));
  }
  if (!done) throw new ImportRefusedError(`${label}: ${table} ends before its closing ']'`);
}

function parseElement(parts: Buffer[], label: string, table: string): unknown {
  const text = (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new ImportRefusedError(`${label}: a row of ${table} is not valid JSON`);
  }
}

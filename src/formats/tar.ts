/**
 * The tar format of backups (POSIX ustar, with pax records for long names and sizes past 8 GiB):
 * regular files only, written and read as streams. Written here rather than taken from a
 * package: a backup needs files in and files out, and the reader must say exactly what is wrong
 * with a damaged archive (a bad header checksum, a cut-off end) rather than skip past it.
 */

const BLOCK = 512;
/** The largest size the header's 11 octal digits hold; past it a pax `size` record carries it. */
const MAX_OCTAL_SIZE = 0o77777777777;
/** The header's name field; longer names go in a pax `path` record. */
const NAME_BYTES = 100;

/** One file of an archive: its path inside it, its size and its bytes. */
export type TarFile = { name: string; size: number; body: AsyncIterable<Buffer> | Buffer };

/** Something in an archive that is not as this format writes it. */
export class TarError extends Error {}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

function header(name: string, size: number, type: "0" | "x", mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, NAME_BYTES, "utf8");
  block.write(octal(0o644, 8), 100, "ascii");
  block.write(octal(0, 8), 108, "ascii");
  block.write(octal(0, 8), 116, "ascii");
  block.write(octal(size > MAX_OCTAL_SIZE ? 0 : size, 12), 124, "ascii");
  block.write(octal(mtime, 12), 136, "ascii");
  block.write(type, 156, "ascii");
  block.write("ustar\0" + "00", 257, "ascii");
  // The checksum is summed with its own field as spaces.
  block.fill(" ", 148, 156);
  block.write(octal(checksum(block), 7) + " ", 148, "ascii");
  return block;
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum;
}

/** One pax record, `<length> <key>=<value>\n`, whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = Buffer.byteLength(body);
  let length = bodyBytes + 1;
  while (length !== bodyBytes + String(length).length) length = bodyBytes + String(length).length;
  return `${length}${body}`;
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/**
 * The archive of `files`, in order, as a stream of chunks (for a gzip stream to compress). A
 * body that yields more or fewer bytes than its stated size fails the stream.
 */
export async function* tarStream(files: AsyncIterable<TarFile> | Iterable<TarFile>, mtime: number): AsyncGenerator<Buffer> {
  for await (const file of files) {
    const records = (Buffer.byteLength(file.name) > NAME_BYTES ? paxRecord("path", file.name) : "") + (file.size > MAX_OCTAL_SIZE ? paxRecord("size", String(file.size)) : "");
    if (records !== "") {
      const pax = Buffer.from(records);
      yield header("PaxHeader", pax.length, "x", mtime);
      yield pax;
      yield padding(pax.length);
    }
    yield header(file.name, file.size, "0", mtime);
    let written = 0;
    for await (const chunk of Buffer.isBuffer(file.body) ? [file.body] : file.body) {
      written += chunk.length;
      yield chunk;
    }
    if (written !== file.size) throw new Error(`${file.name} changed while it was archived (${written} bytes, expected ${file.size})`);
    yield padding(file.size);
  }
  yield Buffer.alloc(2 * BLOCK);
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  #pending: Buffer[] = [];
  #buffered = 0;
  #offset = 0;
  readonly #source: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  /** Bytes consumed so far. */
  get offset(): number {
    return this.#offset;
  }

  /** Up to `max` bytes (at least one), or null at the end of the stream. */
  async some(max: number): Promise<Buffer | null> {
    if (this.#buffered === 0) {
      const next = await this.#source.next();
      if (next.done) return null;
      this.#pending.push(next.value);
      this.#buffered += next.value.length;
    }
    const head = this.#pending[0];
    const taken = head.length <= max ? head : head.subarray(0, max);
    if (taken === head) this.#pending.shift();
    else this.#pending[0] = head.subarray(max);
    this.#buffered -= taken.length;
    this.#offset += taken.length;
    return taken;
  }

  /** Skips `size` bytes; false when the stream ends first. */
  async skip(size: number): Promise<boolean> {
    for (let left = size; left > 0; ) {
      const part = await this.some(left);
      if (part === null) return false;
      left -= part.length;
    }
    return true;
  }

  /** Exactly `size` bytes, or null when the stream ends first. */
  async exactly(size: number): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < size) {
      const part = await this.some(size - got);
      if (part === null) return null;
      parts.push(part);
      got += part.length;
    }
    return Buffer.concat(parts, size);
  }
}

/** One entry as read: its name and size, and its bytes, which must be read before the next entry. */
export type TarEntry = { name: string; size: number; body: AsyncGenerator<Buffer> };

function field(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
}

function octalField(block: Buffer, start: number, length: number, at: number): number {
  const text = field(block, start, length).trim();
  if (!/^[0-7]+$/.test(text)) throw new TarError(`bad number in the tar header at byte ${at}`);
  return parseInt(text, 8);
}

/** The records of a pax header; their lengths count bytes, so they are cut from the bytes. */
function parsePax(data: Buffer, at: number): Map<string, string> {
  const records = new Map<string, string>();
  let rest = data;
  while (rest.length > 0) {
    const space = rest.indexOf(0x20);
    const length = space > 0 && space < 20 ? Number(rest.subarray(0, space).toString("ascii")) : NaN;
    const record = Number.isInteger(length) && length > space && length <= rest.length ? rest.subarray(space + 1, length) : null;
    const equals = record?.indexOf(0x3d) ?? -1;
    if (record === null || equals < 1 || record[record.length - 1] !== 0x0a) throw new TarError(`bad pax record in the tar header at byte ${at}`);
    records.set(record.subarray(0, equals).toString("utf8"), record.subarray(equals + 1, record.length - 1).toString("utf8"));
    rest = rest.subarray(length);
  }
  return records;
}

/**
 * The regular files of an archive, in order. Anything but a regular file, a bad header checksum
 * or an archive that ends before its end-of-archive blocks is a TarError.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source);
  let pax = new Map<string, string>();
  for (;;) {
    const at = reader.offset;
    const block = await reader.exactly(BLOCK);
    if (block === null) throw new TarError("the archive ends without its end-of-archive marker (truncated?)");
    if (block.every((b) => b === 0)) {
      // Read to the end, so a compressed stream underneath checks its trailer.
      while ((await reader.some(1 << 20)) !== null);
      return;
    }
    if (octalField(block, 148, 8, at) !== checksum(block)) throw new TarError(`bad tar header checksum at byte ${at}`);
    const type = field(block, 156, 1) || "0";
    const headerSize = octalField(block, 124, 12, at);
    const size = pax.has("size") ? Number(pax.get("size")) : headerSize;
    if (!Number.isSafeInteger(size) || size < 0) throw new TarError(`bad size in the tar header at byte ${at}`);
    if (type === "x") {
      const data = await reader.exactly(headerSize + padding(headerSize).length);
      if (data === null) throw new TarError("the archive ends inside a header (truncated?)");
      pax = parsePax(data.subarray(0, headerSize), at);
      continue;
    }
    if (type !== "0") throw new TarError(`unexpected tar entry type '${type}' at byte ${at}`);
    const name = pax.get("path") ?? field(block, 0, NAME_BYTES);
    pax = new Map();
    const left = { bytes: size };
    yield { name, size, body: entryBody(reader, left, name) };
    // Whatever the caller left unread is skipped, with the padding to the next block.
    if (!(await reader.skip(left.bytes + padding(size).length))) throw new TarError(`the archive ends inside ${name} (truncated?)`);
  }
}

/** An entry's bytes, counting down `left` as they are read. */
async function* entryBody(reader: ByteReader, left: { bytes: number }, name: string): AsyncGenerator<Buffer> {
  while (left.bytes > 0) {
    const chunk = await reader.some(Math.min(left.bytes, 1 << 20));
    if (chunk === null) throw new TarError(`the archive ends inside ${name} (truncated?)`);
    left.bytes -= chunk.length;
    yield chunk;
  }
}

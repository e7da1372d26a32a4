/**
 * Writes a Zulip export's JSON files as streams: an object of tables (`{"zerver_x": [rows...],
 * ...}`), each row serialized as it comes and written out in buffered pieces, so a table's rows
 * are never held whole. The output is plain JSON, one row to a line, which json-tables.ts (and
 * upstream's importer, which parses the file whole) read.
 */
import fsp from "node:fs/promises";

/** Bytes gathered before a write to the file. */
const FLUSH_BYTES = 1 << 16;

/** Rows of one table, from a list, a generator or a stream of pages. */
export type RowSource = Iterable<object> | AsyncIterable<object>;

/** A JSON object of tables being written to one file. */
export class JsonTablesFile {
  #pending: string[] = [];
  #pendingBytes = 0;
  #tables = 0;
  /** Rows written per table, for stats.json. */
  readonly counts = new Map<string, number>();

  private constructor(private readonly handle: fsp.FileHandle) {}

  /** Creates `file`, which must not exist yet. */
  static async create(file: string): Promise<JsonTablesFile> {
    const out = new JsonTablesFile(await fsp.open(file, "wx"));
    out.#push("{");
    return out;
  }

  #push(text: string): void {
    this.#pending.push(text);
    this.#pendingBytes += text.length;
  }

  async #flushIfFull(): Promise<void> {
    if (this.#pendingBytes >= FLUSH_BYTES) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const text = this.#pending.join("");
    this.#pending = [];
    this.#pendingBytes = 0;
    await this.handle.write(text);
  }

  /** Writes one table, its rows in order. A table's name may come once. */
  async table(name: string, rows: RowSource): Promise<number> {
    if (this.counts.has(name)) throw new Error(`table ${name} was already written`);
    this.#push(`${this.#tables === 0 ? "" : ","}\n  ${JSON.stringify(name)}: [`);
    this.#tables += 1;
    let n = 0;
    for await (const row of rows) {
      this.#push(`${n === 0 ? "" : ","}\n    ${JSON.stringify(row)}`);
      n += 1;
      await this.#flushIfFull();
    }
    this.#push(n === 0 ? "]" : "\n  ]");
    this.counts.set(name, n);
    return n;
  }

  /** Ends the object and closes the file. */
  async close(): Promise<void> {
    this.#push("\n}\n");
    try {
      await this.#flush();
    } finally {
      await this.handle.close();
    }
  }
}

/** Writes one JSON value to a new file (records.json, stats.json, migration_status.json). */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  await fsp.writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { flag: "wx" });
}

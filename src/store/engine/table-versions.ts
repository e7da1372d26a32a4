/**
 * Per-table write counters of one SQLite database, for caches of reads (read-cache.ts). The
 * writer connection reports each statement's SQL before running it (sqlite-statements.ts): a
 * statement that writes a table bumps that table's counter before it runs and again once its
 * transaction ends (COMMIT, ROLLBACK, ROLLBACK TO, or the statement itself outside a
 * transaction), so a value read on another connection in between never outlives the write. A
 * statement whose target is unknown (DDL, anything unrecognised) bumps everything, and so does
 * a commit by another process (`PRAGMA data_version` of the writer changes).
 */

/** What a statement does to the version counters, decided once per SQL text. */
export type StatementEffect =
  | { kind: "none" }
  | { kind: "write"; tables: readonly string[] }
  | { kind: "write-any" }
  | { kind: "end"; whole: boolean };

const WRITE_TARGET = /^\s*(?:(?:insert|replace)(?:\s+or\s+\w+)?\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+"?(\w+)"?/i;
const READ_OR_CONTROL = /^\s*(?:select|pragma|explain|savepoint|release|begin)\b/i;
const TRANSACTION_END = /^\s*(?:commit|end|rollback)\b(\s+(?:transaction\s+)?to\b)?/i;

/** Every write in a `with` query (its data-modifying parts and its main statement). */
const WITH_WRITE_TARGETS = /\b(?:insert\s+into|update|delete\s+from)\s+"?(\w+)"?/gi;

/** What `sql` does to the counters (writes to known tables, to unknown ones, a transaction's end, or nothing). */
function effectOf(sql: string): StatementEffect {
  const target = WRITE_TARGET.exec(sql);
  if (target) return { kind: "write", tables: [target[1].toLowerCase()] };
  const end = TRANSACTION_END.exec(sql);
  if (end) return { kind: "end", whole: end[1] === undefined };
  if (READ_OR_CONTROL.test(sql)) return { kind: "none" };
  // A `with` query may write (`with m as (insert ... returning id) insert ...`): each named table.
  if (/^\s*with\b/i.test(sql)) {
    if (!/\b(?:insert|update|delete|replace)\b/i.test(sql)) return { kind: "none" };
    // `on conflict ... do update set` names no table.
    const tables = [...sql.matchAll(WITH_WRITE_TARGETS)].map((m) => m[1].toLowerCase()).filter((t) => t !== "set");
    if (tables.length > 0 && !/\breplace\b/i.test(sql)) return { kind: "write", tables: [...new Set(tables)] };
  }
  return { kind: "write-any" };
}

/** Statements' effects, decided once per SQL text. */
export class StatementEffects {
  readonly #known = new Map<string, StatementEffect>();

  of(sql: string): StatementEffect {
    let effect = this.#known.get(sql);
    if (!effect) {
      effect = effectOf(sql);
      // Statements with `in (?, ?, ...)` lists vary; their effects are cheap to decide again.
      if (this.#known.size < 2000 && sql.length <= 64 * 1024) this.#known.set(sql, effect);
    }
    return effect;
  }
}

/** A point in the write history of some tables: equal stamps mean no write in between. */
export type Stamp = { generation: number; sum: number };

/** Write counters per table of one SQLite database, bumped around each write (see above). */
export class TableVersions {
  readonly #counters = new Map<string, number>();
  /** Bumped by writes to unknown tables and by other processes' commits. */
  #generation = 0;
  /** Tables written in the open transaction, bumped again when it ends. */
  readonly #pending = new Set<string>();
  #pendingAny = false;
  readonly #effects = new StatementEffects();
  #externalVersion: number;
  #externalChecked = false;

  /**
   * `readExternalVersion` reads the writer's PRAGMA data_version (changed by other connections'
   * commits); `onWrite`, if given, hears of every writing statement (the WAL checkpointer's cue).
   */
  constructor(
    private readonly readExternalVersion: () => number,
    private readonly onWrite: () => void = () => {},
  ) {
    this.#externalVersion = readExternalVersion();
  }

  /** Called by the writer with each statement just before it runs; `inTransaction` as it stands then. */
  beforeStatement(sql: string, inTransaction: boolean): void {
    const effect = this.#effects.of(sql);
    switch (effect.kind) {
      case "none":
        return;
      case "write":
        this.onWrite();
        for (const table of effect.tables) {
          this.#bump(table);
          this.#pending.add(table);
        }
        break;
      case "write-any":
        this.onWrite();
        this.#generation++;
        this.#pendingAny = true;
        break;
      case "end":
        if (this.#pending.size > 0 || this.#pendingAny) this.onWrite();
        // The statement runs synchronously right after this call; settle once it has.
        queueMicrotask(() => this.#settle(effect.whole));
        return;
    }
    if (!inTransaction) queueMicrotask(() => this.#settle(true));
  }

  /**
   * The stamp of `tables` now. Other processes' commits are looked for once per turn of the event
   * loop (reading data_version cost more than the rest of a cached read): a commit elsewhere is
   * seen by the reads that start after the current turn, as if it had happened then.
   */
  stamp(tables: readonly string[]): Stamp {
    if (!this.#externalChecked) {
      this.#externalChecked = true;
      setImmediate(() => (this.#externalChecked = false));
      const external = this.readExternalVersion();
      if (external !== this.#externalVersion) {
        this.#externalVersion = external;
        this.#generation++;
      }
    }
    let sum = 0;
    for (const table of tables) sum += this.#counters.get(table) ?? 0;
    return { generation: this.#generation, sum };
  }

  /** Whether a read of `tables` now sees only committed data (no write to them is pending). */
  settled(tables: readonly string[]): boolean {
    return !this.#pendingAny && tables.every((t) => !this.#pending.has(t));
  }

  #bump(table: string): void {
    this.#counters.set(table, (this.#counters.get(table) ?? 0) + 1);
  }

  #settle(transactionOver: boolean): void {
    for (const table of this.#pending) this.#bump(table);
    if (this.#pendingAny) this.#generation++;
    if (transactionOver) {
      this.#pending.clear();
      this.#pendingAny = false;
    }
  }
}

/**
 * Per-table write counters for the read cache (read-cache.ts) on PostgreSQL.
 *
 * This process: every pooled connection reports each statement before it runs (`watchPool`). A
 * write bumps its table's counter at once and again when its transaction ends (or, outside a
 * transaction, when the statement returns); until then the table is pending, so no read of it is
 * kept. A statement whose target is unknown bumps everything.
 *
 * Other processes (and psql, and tests writing directly): statement-level triggers on every
 * cached table (migration 0024) send `NOTIFY parley_tables, '<table>'` on commit, and one
 * listening connection per store bumps the counters it names. A commit elsewhere is seen as soon
 * as its notification arrives, usually well under a millisecond. While that connection is down
 * (or not yet listening), nothing is kept and nothing is served from the cache.
 */
import pg from "pg";
import type { Logger } from "pino";
import { StatementEffects, type Stamp } from "./table-versions.ts";
import type { VersionSource } from "./read-cache.ts";

/** The notification channel the triggers of migration 0024 send to. */
export const TABLES_CHANNEL = "parley_tables";

const BEGIN = /^\s*(?:begin|start\s+transaction)\b/i;
/** How long the listener waits before connecting again after losing its connection. */
const RELISTEN_MS = 1000;

/** One connection's open transaction: the tables it wrote so far. */
type ConnState = { inTransaction: boolean; pending: Set<string>; pendingAny: boolean };

export class PgTableVersions implements VersionSource {
  readonly #counters = new Map<string, number>();
  #generation = 0;
  /** Per table, how many connections have an unfinished write to it. */
  readonly #pending = new Map<string, number>();
  #pendingAny = 0;
  readonly #effects = new StatementEffects();
  #listening = false;
  #sync: (() => Promise<void>) | null = null;

  stamp(tables: readonly string[]): Stamp {
    // Without the listener, other processes' commits go unseen: every stamp is new.
    if (!this.#listening) return { generation: ++this.#generation, sum: 0 };
    let sum = 0;
    for (const table of tables) sum += this.#counters.get(table) ?? 0;
    return { generation: this.#generation, sum };
  }

  settled(tables: readonly string[]): boolean {
    return this.#listening && this.#pendingAny === 0 && tables.every((t) => (this.#pending.get(t) ?? 0) === 0);
  }

  /**
   * A round trip on the listening connection: PostgreSQL sends a notification pending there
   * before the answer to a later query, so every commit made before the call has been noticed
   * when it resolves. Without the connection nothing is cached, so there is nothing to wait for.
   */
  async sync(): Promise<void> {
    await this.#sync?.();
  }

  /** Sets how sync() reaches the listening connection (null while it is down). */
  setSync(sync: (() => Promise<void>) | null): void {
    this.#sync = sync;
  }

  /** The listener is (or is no longer) hearing other processes' commits; either way, start over. */
  setListening(listening: boolean): void {
    this.#listening = listening;
    this.#generation++;
  }

  /** Another process (or this one, through its triggers) committed writes to `table`. */
  noteCommitted(table: string): void {
    this.#bump(table);
  }

  /**
   * Called with each statement of `conn` before it is sent; returns what to call once it has
   * returned (or failed), if anything.
   */
  beforeStatement(conn: ConnState, sql: string): (() => void) | undefined {
    if (BEGIN.test(sql)) {
      conn.inTransaction = true;
      return undefined;
    }
    const effect = this.#effects.of(sql);
    switch (effect.kind) {
      case "none":
        return undefined;
      case "write":
        return this.#write(conn, effect.tables);
      case "write-any":
        return this.#writeAny(conn);
      case "end":
        return effect.whole ? () => this.endTransaction(conn) : () => this.#bumpPending(conn);
    }
  }

  /** The transaction of `conn` is over (committed, rolled back, or its connection lost). */
  endTransaction(conn: ConnState): void {
    this.#bumpPending(conn);
    for (const table of conn.pending) this.#release(table);
    conn.pending.clear();
    if (conn.pendingAny) this.#pendingAny--;
    conn.pendingAny = false;
    conn.inTransaction = false;
  }

  #write(conn: ConnState, tables: readonly string[]): (() => void) | undefined {
    for (const table of tables) {
      this.#bump(table);
      if (conn.inTransaction && conn.pending.has(table)) continue;
      if (conn.inTransaction) conn.pending.add(table);
      this.#pending.set(table, (this.#pending.get(table) ?? 0) + 1);
    }
    if (conn.inTransaction) return undefined;
    return () => {
      for (const table of tables) {
        this.#bump(table);
        this.#release(table);
      }
    };
  }

  #writeAny(conn: ConnState): (() => void) | undefined {
    this.#generation++;
    if (conn.inTransaction) {
      if (!conn.pendingAny) {
        conn.pendingAny = true;
        this.#pendingAny++;
      }
      return undefined;
    }
    this.#pendingAny++;
    return () => {
      this.#generation++;
      this.#pendingAny--;
    };
  }

  #bumpPending(conn: ConnState): void {
    for (const table of conn.pending) this.#bump(table);
    if (conn.pendingAny) this.#generation++;
  }

  #release(table: string): void {
    const left = (this.#pending.get(table) ?? 1) - 1;
    if (left > 0) this.#pending.set(table, left);
    else this.#pending.delete(table);
  }

  #bump(table: string): void {
    this.#counters.set(table, (this.#counters.get(table) ?? 0) + 1);
  }
}

type Query = (...args: unknown[]) => unknown;

/** Makes every connection of `pool` report its statements to `versions`. */
export function watchPool(pool: pg.Pool, versions: PgTableVersions): void {
  pool.on("connect", (client) => {
    const conn: ConnState = { inTransaction: false, pending: new Set(), pendingAny: false };
    const query = client.query.bind(client) as Query;
    const watched: Query = (...args) => {
      const first = args[0];
      const sql = typeof first === "string" ? first : typeof first === "object" && first !== null && "text" in first ? String(first.text) : null;
      const after = sql === null ? undefined : versions.beforeStatement(conn, sql);
      const result = query(...args);
      if (after) {
        if (result instanceof Promise) result.then(after, after);
        else after();
      }
      return result;
    };
    (client as unknown as { query: Query }).query = watched;
    // A connection lost inside a transaction never sends its COMMIT: its writes are over.
    client.on("end", () => {
      if (conn.inTransaction) versions.endTransaction(conn);
    });
  });
}

/** The listening connection: bumps `versions` for other processes' commits, reconnecting when lost. */
export function listenForCommits(connectionString: string, versions: PgTableVersions, log?: Pick<Logger, "warn">): { close(): Promise<void> } {
  let closed = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;

  const lost = (err?: unknown) => {
    versions.setListening(false);
    versions.setSync(null);
    const old = client;
    client = null;
    old?.removeAllListeners();
    old?.on("error", () => undefined);
    void old?.end().catch(() => undefined);
    if (closed) return;
    if (err) log?.warn({ err: err instanceof Error ? err.message : String(err) }, "read cache: lost the PostgreSQL notification connection; reading through until it is back");
    timer = setTimeout(connect, RELISTEN_MS);
    timer.unref();
  };

  const connect = () => {
    timer = null;
    const next = new pg.Client({ connectionString });
    client = next;
    next.on("error", lost);
    next.on("end", () => {
      if (client === next) lost();
    });
    next.on("notification", (msg) => {
      if (msg.channel === TABLES_CHANNEL && msg.payload) versions.noteCommitted(msg.payload);
    });
    next
      .connect()
      .then(() => next.query(`listen ${TABLES_CHANNEL}`))
      .then(() => {
        if (client !== next) return;
        versions.setListening(true);
        versions.setSync(async () => void (await next.query("select 1")));
      })
      .catch((err: unknown) => {
        if (client === next) lost(err);
      });
  };

  connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const last = client;
      client = null;
      versions.setListening(false);
      versions.setSync(null);
      if (last) {
        last.removeAllListeners();
        last.on("error", () => undefined);
        await last.end().catch(() => undefined);
      }
    },
  };
}

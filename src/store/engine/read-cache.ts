/**
 * Small reads that every request repeats (the caller's user by API key, the realm, a channel, its
 * subscribers, a group membership), kept in memory while the tables they read are unwritten.
 * On SQLite every write of this process goes through one connection that reports it
 * (table-versions.ts) and other processes' commits are noticed by PRAGMA data_version. On
 * PostgreSQL every pooled connection reports its statements, and other processes' commits arrive
 * as notifications from triggers (pg-table-versions.ts). A value is kept only when read with no
 * write to its tables pending, so it is always a committed state; each caller gets its own copy.
 */
import type { Db } from "../schema/types.ts";
import type { Stamp } from "./table-versions.ts";

/** Where a cache learns of writes: SQLite's TableVersions or PostgreSQL's PgTableVersions. */
export type VersionSource = {
  /** A point in the write history of `tables`: equal stamps mean no write in between. */
  stamp(tables: readonly string[]): Stamp;
  /** Whether a read of `tables` now sees only committed data (no write to them is pending). */
  settled(tables: readonly string[]): boolean;
  /** Resolves once every commit made before the call has been noticed (PostgreSQL's notifications). */
  sync?(): Promise<void>;
};

/** Every table some cached read depends on (PostgreSQL's triggers must report writes to each). */
export const CACHED_TABLES = new Set<string>();

type Entry = { stamp: Stamp; value: unknown };

/** Entries per store; past it the cache starts over (a realm's hot set is far smaller). */
const MAX_ENTRIES = 20_000;

type Cache = { versions: VersionSource; entries: Map<string, Entry> };

const cacheOf = new WeakMap<object, Cache>();

/** Gives reads through `db` a cache kept by `versions`' write counters. */
export function attachReadCache(db: Db, versions: VersionSource): void {
  cacheOf.set(db, { versions, entries: new Map() });
}

/**
 * Resolves once `db`'s cache has noticed every commit made before the call, by any process (tests
 * that write the database directly call it, through a test-control route, before asking the
 * server again).
 */
export async function syncReadCache(db: Db): Promise<void> {
  await cacheOf.get(db)?.versions.sync?.();
}

/** Lets reads through `other` (the same database's reader, or a transaction) use `db`'s cache, if any. */
export function shareReadCache(other: Db, db: Db): void {
  const cache = cacheOf.get(db);
  if (cache) cacheOf.set(other, cache);
}

/**
 * Wraps `read(db, ...args)`, which reads only `tables`, with the cache. `key` names the
 * arguments uniquely; `copy` gives each caller a value it may change.
 */
export function cachedRead<A extends unknown[], R>(
  name: string,
  tables: readonly string[],
  key: (...args: A) => string,
  copy: (value: R) => R,
  read: (db: Db, ...args: A) => Promise<R>,
): (db: Db, ...args: A) => Promise<R> {
  for (const table of tables) CACHED_TABLES.add(table);
  return async (db, ...args) => {
    const cache = cacheOf.get(db);
    if (!cache) return read(db, ...args);
    const id = `${name}\u0000${key(...args)}`;
    const stamp = cache.versions.stamp(tables);
    const hit = cache.entries.get(id);
    if (hit && hit.stamp.generation === stamp.generation && hit.stamp.sum === stamp.sum) return copy(hit.value as R);
    const settled = cache.versions.settled(tables);
    const value = await read(db, ...args);
    if (settled) {
      if (cache.entries.size >= MAX_ENTRIES) cache.entries.clear();
      cache.entries.set(id, { stamp, value });
    }
    return copy(value);
  };
}

/** A cachedRead `copy` for lists of rows: each caller gets rows of its own. */
export function copyRows<R extends object>(rows: R[]): R[] {
  return rows.map((row) => ({ ...row }));
}

/** A cached read of a realm's rows (reading only `tables`) as a list; each caller gets rows of its own. */
export function cachedRealmRows<R extends object>(name: string, tables: readonly string[], read: (db: Db, realmId: number) => Promise<R[]>): (db: Db, realmId: number) => Promise<R[]> {
  return cachedRead(name, tables, (realmId: number) => String(realmId), copyRows<R>, read);
}

/** A cached read of one user's rows (reading only `tables`) as a list; each caller gets rows of its own. */
export function cachedUserRows<R extends object>(name: string, tables: readonly string[], read: (db: Db, realmId: number, userId: number) => Promise<R[]>): (db: Db, realmId: number, userId: number) => Promise<R[]> {
  return cachedRead(name, tables, (realmId: number, userId: number) => `${realmId}/${userId}`, copyRows<R>, read);
}

/** A cached read of a realm-wide value (reading only `tables`) that every caller shares: immutable, or not to change. */
export function cachedRealmValue<R>(name: string, tables: readonly string[], read: (db: Db, realmId: number) => Promise<R>): (db: Db, realmId: number) => Promise<R> {
  return cachedRead(name, tables, (realmId: number) => String(realmId), (value: R) => value, read);
}

/**
 * A cached read of a realm's rows of `table` by id, in id order, shared by every caller (not to
 * change): hand out rows with `copiesByIds`.
 */
export function cachedRowsById<R extends { id: number }>(name: string, table: string, read: (db: Db, realmId: number) => Promise<R[]>): (db: Db, realmId: number) => Promise<ReadonlyMap<number, R>> {
  return cachedRealmValue(name, [table], async (db, realmId): Promise<ReadonlyMap<number, R>> => new Map((await read(db, realmId)).map((row) => [row.id, row])));
}

/** Copies of the rows of `ids` (ascending, each once; unknown ids skipped). */
export function copiesByIds<R extends object>(byId: ReadonlyMap<number, R>, ids: readonly number[]): R[] {
  return [...new Set(ids)].sort((a, b) => a - b).flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ ...row }] : [];
  });
}

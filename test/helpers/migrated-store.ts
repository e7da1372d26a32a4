/**
 * A store-level suite's own database: made fresh and migrated before the suite (with the fixture
 * realm and users when asked), opened in this process, closed and dropped after it.
 */
import { after, before } from "node:test";
import { Migrator } from "kysely";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import { migrations } from "../../src/store/migrations/index.ts";
import { createFixtures, type Fixtures } from "./fixtures.ts";
import { freshStore, type FreshStore, type StoreKind } from "./stores.ts";

/** The suite's store, handed to the suite once it is ready. */
export type MigratedStore = { fresh: FreshStore; store: Store };

/** Options: the fixture realm and users, the store's group-commit batch size and (PostgreSQL) write lanes (and how long a further one waits) and named page queries. */
type Options = { fixtures?: boolean; groupCommitMax?: number; pgWriteLanes?: number; pgWriteLaneWaitMs?: number; pgNamedPageQueries?: number };

/** Registers the suite's before/after hooks; `ready` receives the store (and fixtures when asked) before the first test. */
export function useMigratedStore(kind: StoreKind, opts: Options & { fixtures: true }, ready: (s: MigratedStore & { fixtures: Fixtures }) => void): void;
export function useMigratedStore(kind: StoreKind, opts: Options, ready: (s: MigratedStore) => void): void;
export function useMigratedStore(kind: StoreKind, opts: Options, ready: (s: MigratedStore & { fixtures: Fixtures }) => void): void {
  let fresh: FreshStore | undefined;
  let store: Store | undefined;
  before(async () => {
    fresh = await freshStore(kind);
    // Without `fixtures: true` the suite's callback (second overload) never reads them.
    const fixtures = (opts.fixtures ? await createFixtures(fresh) : undefined) as Fixtures;
    store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir, groupCommitMax: opts.groupCommitMax, pgWriteLanes: opts.pgWriteLanes, pgWriteLaneWaitMs: opts.pgWriteLaneWaitMs, pgNamedPageQueries: opts.pgNamedPageQueries });
    await migrate(store);
    ready({ fresh, store, fixtures });
  });
  after(async () => {
    await store?.close();
    await fresh?.drop();
  });
}

/**
 * Registers the hooks of a migration's suite: a fresh store migrated up to `through` (a migration's
 * name), handed to `ready` with the migrator that takes it on. Closed and dropped after the suite.
 */
export function useStoreMigratedTo(kind: StoreKind, through: string, ready: (s: MigratedStore & { migrator: Migrator }) => void): void {
  let fresh: FreshStore | undefined;
  let store: Store | undefined;
  before(async () => {
    fresh = await freshStore(kind);
    const opened = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
    store = opened;
    const migrator = new Migrator({ db: opened.db, provider: { getMigrations: async () => migrations(opened.engine) } });
    const { error } = await migrator.migrateTo(through);
    if (error) throw error;
    ready({ fresh, store: opened, migrator });
  });
  after(async () => {
    await store?.close();
    await fresh?.drop();
  });
}

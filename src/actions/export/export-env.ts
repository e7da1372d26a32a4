/**
 * What every step of an organization export works with: the store it reads, the uploads
 * directory its files come from, the organization and the progress log.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema/database.ts";
import type { Engine } from "../../store/schema/types.ts";
import type { ReadSnapshot } from "../../store/export/snapshot.ts";

/**
 * What the export needs of the server (the CLI's store, or a server's for the API's job). The
 * export reads none of it through `db` directly: it opens a read-only snapshot of its own
 * (store/export/snapshot.ts) from `db` and `engine`, or with `openSnapshot` when given.
 */
export type ExportTarget = { db: Kysely<Database>; engine: Engine; uploadsDir: string; log: (line: string) => void; openSnapshot?: () => Promise<ReadSnapshot> };

/** The environment of an export's steps: `db` is the export's snapshot. */
export type ExportEnv = ExportTarget & { realmId: number };

/** UNIX seconds or null as Zulip's JSON gives a boolean column. */
export function bool(value: number | null): boolean | null {
  return value === null ? null : value === 1;
}

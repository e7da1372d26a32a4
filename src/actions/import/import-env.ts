/**
 * What every step of an import works with: the open transaction, the organization being written,
 * where files go, the progress log, and the running counts of what came across. Reusable by any
 * source format: the steps of a Zulip import fill it, and so can a Slack or Mattermost reader.
 */
import type { Db, Engine } from "../../store/schema/types.ts";
import type { Flag } from "../../store/schema/database.ts";
import { ImportRefusedError } from "../../errors.ts";

/** A line of progress for the operator (the CLI writes it to stderr). */
export type ImportLog = (line: string) => void;

/** The environment of an import's steps. */
export type ImportEnv = {
  /** The import's one transaction: every row is written in it, so a failure leaves nothing. */
  tx: Db;
  engine: Engine;
  realmId: number;
  /** The server's uploads directory (UPLOADS_DIR). */
  uploadsDir: string;
  /** EXTERNAL_URL: the host of the system bots' addresses. */
  externalUrl: string;
  log: ImportLog;
  /** Files written so far (absolute paths), removed again when the import fails. */
  writtenFiles: string[];
  /** What came across, by kind, for the closing summary. */
  counts: Map<string, number>;
  /** Notes for the operator: what was left aside or adjusted, printed at the end. */
  notes: string[];
};

/** Adds `n` to a kind's count. */
export function count(env: Pick<ImportEnv, "counts">, kind: string, n = 1): void {
  env.counts.set(kind, (env.counts.get(kind) ?? 0) + n);
}

/** A boolean as a 0/1 column. */
export function flag(value: boolean): Flag {
  return value ? 1 : 0;
}

/** A nullable boolean as a nullable 0/1 column. */
export function optionalFlag(value: boolean | null): Flag | null {
  return value === null ? null : flag(value);
}

/** UNIX seconds as the store keeps times: whole seconds, as the API shows them. */
export function seconds(time: number): number {
  return Math.floor(time);
}

/** Refuses the import: `what` says which reference or value of the export is wrong. */
export function refuse(what: string): never {
  throw new ImportRefusedError(what);
}

/**
 * A backup archive's manifest (`manifest.json`, its first file): which Parley and which store
 * made it, when, of which site, what the database held, and every other file of the archive
 * with its size and SHA-256, so a damaged or altered archive is refused before anything is
 * restored from it.
 */
import { z } from "zod";
import { CliError } from "./args.ts";

/** The manifest's file name, first in the archive. */
export const MANIFEST_NAME = "manifest.json";
/** The format's name and version; a reader refuses a version it does not know. */
const FORMAT = "parley-backup";
export const FORMAT_VERSION = 1;
/** A manifest larger than this is not one of ours (it lists every upload: 100,000 take some 15 MB). */
export const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** The two stores, as manifests name them. */
export type StoreName = "sqlite" | "postgresql";

/** Where the database is in the archive, per store. */
export const DATABASE_MEMBER: Record<StoreName, string> = { sqlite: "database/parley.db", postgresql: "database/parley.pgdump" };
/** The owner's API credentials the first start wrote to DATA_DIR (bootstrap.ts). */
export const ZULIPRC_MEMBER = "zuliprc";
/** Stored files are under `uploads/` as under UPLOADS_DIR: `files/<path id>`, `emoji/<realm id>/<file name>`, `avatars/<realm id>/<user id>.png`. */
export const UPLOADS_PREFIX = "uploads/";

/** The areas of UPLOADS_DIR a backup holds: what the database names. Organization exports (`exports/`) are left out: they can be made again. */
export const BACKED_UP_AREAS = ["files", "emoji", "avatars"] as const;

/** What a backup leaves out, for the operator reading its manifest (README.md "Backups" says the same). */
export const NOT_INCLUDED = [
  "the environment the server runs with (EXTERNAL_URL, DATABASE_URL, SMTP_URL, PUSH_RELAY_*, REDIS_URL and the rest): keep it with your deployment files",
  "event queues saved at a shutdown (clients register again)",
  "what Redis holds (the event backlog and rate-limit counters)",
  "organization data exports (UPLOADS_DIR/exports): ask for them again",
];

const member = z.object({ path: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });

/** One file of the archive besides the manifest. */
export type Member = z.infer<typeof member>;

const manifestSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(FORMAT_VERSION),
  parley_version: z.string(),
  store: z.enum(["sqlite", "postgresql"]),
  created: z.string(),
  external_url: z.string(),
  migrations: z.array(z.string()),
  contents: z.object({
    realms: z.number().int(),
    users: z.number().int(),
    messages: z.number().int(),
    last_message_id: z.number().int().nullable(),
    uploads: z.number().int(),
    custom_emoji: z.number().int(),
  }),
  missing_files: z.array(z.string()),
  members: z.array(member),
  not_included: z.array(z.string()),
});

/** A backup's manifest. */
export type Manifest = z.infer<typeof manifestSchema>;

/** The manifest of a backup being written (format and version filled in). */
export function newManifest(fields: Omit<Manifest, "format" | "version" | "not_included">): Manifest {
  return { format: FORMAT, version: FORMAT_VERSION, ...fields, not_included: NOT_INCLUDED };
}

/** Whether `name` is a path a backup may hold: relative, plain segments, under a known place. */
function isMemberPath(name: string, store: StoreName): boolean {
  if (name === DATABASE_MEMBER[store] || name === ZULIPRC_MEMBER) return true;
  if (!BACKED_UP_AREAS.some((area) => name.startsWith(`${UPLOADS_PREFIX}${area}/`))) return false;
  return name.split("/").every((s) => s !== "" && s !== "." && s !== ".." && !s.includes("\\") && !s.includes("\0"));
}

/** Reads a manifest's text; anything that is not a manifest this version wrote is refused clearly. */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CliError("not a Parley backup: its manifest.json is not JSON");
  }
  const head = z.object({ format: z.literal(FORMAT), version: z.number().int() }).safeParse(raw);
  if (!head.success) throw new CliError("not a Parley backup: its manifest.json does not name the parley-backup format");
  if (head.data.version !== FORMAT_VERSION) {
    throw new CliError(`this backup has format version ${head.data.version}; this Parley reads version ${FORMAT_VERSION}: restore it with the Parley that made it, or a newer one`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) throw new CliError(`the backup's manifest is malformed (${parsed.error.issues[0].path.join(".")}: ${parsed.error.issues[0].message})`);
  const manifest = parsed.data;
  const seen = new Set<string>();
  for (const m of manifest.members) {
    if (!isMemberPath(m.path, manifest.store) || seen.has(m.path)) throw new CliError(`the backup's manifest lists a file it may not hold: ${JSON.stringify(m.path)}`);
    seen.add(m.path);
  }
  if (!seen.has(DATABASE_MEMBER[manifest.store])) throw new CliError(`the backup's manifest lists no database (${DATABASE_MEMBER[manifest.store]})`);
  return manifest;
}

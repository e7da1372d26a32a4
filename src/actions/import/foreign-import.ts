/**
 * Imports an organization of another product (Slack; Mattermost) into an empty Parley: its reader
 * (formats/slack/, formats/mattermost/) gives the shared model, formats/foreign/ converts that
 * into a Zulip export in a temporary directory, every message rendered by Parley's own Markdown
 * renderer, and the Zulip import (zulip-import.ts) reads it into the store, in one transaction.
 * The temporary directories (the unpacked source, the export) are removed in every case.
 */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { renderMessage } from "../../markdown/render.ts";
import { unicodeEmojiCode } from "../../markdown/emoji-data.ts";
import { convertForeignOrganization, type ForeignRendering } from "../../formats/foreign/convert.ts";
import type { ForeignOrganization } from "../../formats/foreign/organization.ts";
import { readSlackExport } from "../../formats/slack/reader.ts";
import { existingOrganization } from "../../store/import/bulk-insert.ts";
import { ImportRefusedError } from "../../errors.ts";
import { importZulipExport, type ImportSummary, type ImportTarget } from "./zulip-import.ts";

/** A reader: opens the source (unpacking into `workDir` if need be) and gives the organization. */
export type ForeignReader = (source: string, workDir: string) => Promise<ForeignOrganization>;

/** What the import says of a foreign organization: the Zulip import's summary, the source's name instead of a Zulip version. */
export type ForeignImportSummary = ImportSummary & { source: string };

function rendering(externalUrl: string): ForeignRendering {
  return { realmUrl: externalUrl, render: (markdown, ctx) => renderMessage(markdown, ctx), emojiCode: unicodeEmojiCode };
}

/** Imports `source` read by `read`; refuses (ImportRefusedError, nothing written) a store that is not empty or a malformed source. */
export async function importForeignOrganization(target: ImportTarget, source: string, read: ForeignReader): Promise<ForeignImportSummary> {
  const existing = await existingOrganization(target.db);
  if (existing !== null) throw new ImportRefusedError(`the store already holds the organization "${existing}": import into an empty store (a new DATA_DIR, or a new database for DATABASE_URL)`);
  const workDir = await fsp.mkdtemp(path.join(os.tmpdir(), "parley-foreign-"));
  try {
    const unpacked = path.join(workDir, "source");
    const exportDir = path.join(workDir, "zulip-export");
    await fsp.mkdir(unpacked);
    const org = await read(source, unpacked);
    target.log(`read a ${org.source} export: ${org.users.length} users, ${org.channels.length} channels; converting the messages`);
    const converted = await convertForeignOrganization(org, exportDir, rendering(target.externalUrl));
    target.log(`converted ${converted.messages} messages; importing`);
    const summary = await importZulipExport(target, exportDir);
    return { ...summary, source: org.source, notes: [...converted.notes, ...summary.notes] };
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true });
  }
}

/** Imports a Slack export (.zip or its folder). */
export function importSlackExport(target: ImportTarget, source: string): Promise<ForeignImportSummary> {
  return importForeignOrganization(target, source, readSlackExport);
}

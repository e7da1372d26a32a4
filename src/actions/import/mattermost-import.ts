/**
 * Imports one team of a Mattermost bulk export into an empty Parley: formats/mattermost/ reads
 * it as the shared model, and the foreign-organization import (foreign-import.ts) converts and
 * imports it as it does Slack's.
 */
import { readMattermostExport } from "../../formats/mattermost/read-export.ts";
import { importForeignOrganization, type ForeignImportSummary } from "./foreign-import.ts";
import type { ImportTarget } from "./zulip-import.ts";

/** Imports the team `team` (needed when the export holds several) of the export at `source` (.jsonl or its folder). */
export function importMattermostExport(target: ImportTarget, source: string, team?: string): Promise<ForeignImportSummary> {
  return importForeignOrganization(target, source, async (path) => (await readMattermostExport(path, { team })).organization);
}

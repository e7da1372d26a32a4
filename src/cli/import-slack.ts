/**
 * `parley import-slack EXPORT`: imports a Slack export (the .zip Slack's "Export data" page
 * gives, or its unpacked folder) into an empty store (actions/import/foreign-import.ts), with
 * the same progress and report as import-zulip (import-run.ts).
 */
import type { Config } from "../config.ts";
import { importSlackExport } from "../actions/import/foreign-import.ts";
import { runImportCommand } from "./import-run.ts";

/** import-slack: the export's path is the one argument. */
export function runImportSlack(argv: string[], config: Config): Promise<void> {
  return runImportCommand(
    { name: "import-slack", usage: "EXPORT.zip|EXPORT_DIR", origin: (s) => s.source, kept: "Threads became topics (docs/import.md).", run: importSlackExport },
    argv,
    config,
  );
}

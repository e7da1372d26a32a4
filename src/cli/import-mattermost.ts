/**
 * `parley import-mattermost EXPORT [--team NAME]`: imports one team of a Mattermost bulk export
 * (the .jsonl file, or the folder holding it and its `data/`) into an empty store
 * (actions/import/mattermost-import.ts), with the same progress and report as the other import
 * commands (import-run.ts). An export of several teams needs --team; the refusal lists them.
 */
import type { Config } from "../config.ts";
import { importMattermostExport } from "../actions/import/mattermost-import.ts";
import type { ForeignImportSummary } from "../actions/import/foreign-import.ts";
import { parseFileArgument, type OptionSpecs } from "./args.ts";
import { runImportCommand } from "./import-run.ts";

const OPTIONS: OptionSpecs = { team: { help: "the team to import, when the export holds several" } };

/** import-mattermost: the export's path, and --team when the export holds several teams. */
export function runImportMattermost(argv: string[], config: Config): Promise<void> {
  const { file, opts } = parseFileArgument(argv, OPTIONS);
  return runImportCommand(
    {
      name: "import-mattermost",
      usage: "EXPORT.jsonl|EXPORT_DIR [--team NAME]",
      origin: (s: ForeignImportSummary) => s.source,
      kept: "Threads became topics (docs/import.md).",
      run: (target, source) => importMattermostExport(target, source, opts.team),
    },
    [file],
    config,
  );
}

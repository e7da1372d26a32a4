/**
 * `parley import-zulip EXPORT`: imports a Zulip organization export (the .tar.gz `manage.py
 * export` writes, or its unpacked directory) into an empty store, with progress on stderr and,
 * on stdout, what came across and what to do next (import-run.ts). Unlike the other admin
 * commands it needs no organization: it makes the store's only one.
 */
import type { Config } from "../config.ts";
import { importZulipExport } from "../actions/import/zulip-import.ts";
import { runImportCommand } from "./import-run.ts";

/** import-zulip: the export's path is the one argument. */
export function runImportZulip(argv: string[], config: Config): Promise<void> {
  return runImportCommand(
    { name: "import-zulip", usage: "EXPORT.tar.gz|EXPORT_DIR", origin: (s) => `Zulip ${s.zulipVersion}`, kept: "Every id, and so every link, was kept.", run: importZulipExport },
    argv,
    config,
  );
}

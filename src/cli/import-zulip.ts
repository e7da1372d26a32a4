/**
 * `parley import-zulip EXPORT`: imports a Zulip organization export (the .tar.gz `manage.py
 * export` writes, or its unpacked directory) into an empty store, with progress on stderr and,
 * on stdout, what came across and what to do next. Unlike the other admin commands it needs no
 * organization: it makes the store's only one.
 */
import { ImportRefusedError } from "../errors.ts";
import type { Config } from "../config.ts";
import { migrate, openStore } from "../store/db.ts";
import { importZulipExport, type ImportSummary } from "../actions/import/zulip-import.ts";
import { CliError } from "./args.ts";
import { print, warn } from "./terminal.ts";

function report(summary: ImportSummary, elapsedSeconds: number): string {
  const lines = [
    `Imported "${summary.realmName}" (organization ${summary.realmId}, from Zulip ${summary.zulipVersion}) in ${elapsedSeconds.toFixed(1)} s:`,
    ...[...summary.counts].map(([kind, n]) => `  ${kind}: ${n}`),
    ...summary.notes.map((note) => `note: ${note}`),
    "",
    "Every id, and so every link, was kept. People arrive without passwords (exports hold none) and",
    "with new API keys; nobody can log in yet. Next:",
    "  - give people a way in: password-reset emails (send-password-resets --only-never-logged-in,",
    "    where available), or `npx parley set-password --email ADDRESS` per person, or an SSO provider;",
    "  - bots and integrations need their new keys: `npx parley api-key --email BOT_ADDRESS`;",
    "  - start the server (npm start) and check the organization's settings.",
  ];
  return lines.join("\n");
}

/** import-zulip: the export's path is the one argument; it opens (and migrates) the store itself. */
export async function runImportZulip(argv: string[], config: Config): Promise<void> {
  if (argv.length !== 1 || argv[0].startsWith("-")) throw new CliError("usage: parley import-zulip EXPORT.tar.gz|EXPORT_DIR", 2);
  const store = openStore(config);
  try {
    await migrate(store);
    const started = Date.now();
    const summary = await importZulipExport(
      { db: store.db, engine: store.engine, uploadsDir: config.uploadsDir, externalUrl: config.externalUrl, log: (line) => warn(`import-zulip: ${line}`) },
      argv[0],
    );
    print(report(summary, (Date.now() - started) / 1000));
  } catch (err) {
    if (err instanceof ImportRefusedError) throw new CliError(`refused, nothing was imported: ${err.message}`);
    throw err;
  } finally {
    await store.close();
  }
}

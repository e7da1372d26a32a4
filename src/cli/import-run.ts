/**
 * What the import commands (import-zulip, import-slack, import-mattermost) share: the one
 * argument, the store opened and migrated, progress on stderr, a refusal said as such, and the
 * report on stdout of what came across and what to do next.
 */
import { ImportRefusedError } from "../errors.ts";
import type { Config } from "../config.ts";
import { migrate, openStore } from "../store/db.ts";
import type { ImportSummary, ImportTarget } from "../actions/import/zulip-import.ts";
import { CliError } from "./args.ts";
import { print, warn } from "./terminal.ts";

/** One import command: its name, its usage, what it says the organization came from, and the import itself. */
export type ImportCommand<S extends ImportSummary> = {
  name: string;
  usage: string;
  /** "Zulip 10.2", "Slack"... */
  origin(summary: S): string;
  /** What the report says of ids ("Every id, and so every link, was kept."). */
  kept: string;
  run(target: ImportTarget, source: string): Promise<S>;
};

function report<S extends ImportSummary>(command: ImportCommand<S>, summary: S, elapsedSeconds: number): string {
  const lines = [
    `Imported "${summary.realmName}" (organization ${summary.realmId}, from ${command.origin(summary)}) in ${elapsedSeconds.toFixed(1)} s:`,
    ...[...summary.counts].map(([kind, n]) => `  ${kind}: ${n}`),
    ...summary.notes.map((note) => `note: ${note}`),
    "",
    `${command.kept} People arrive without passwords (exports hold none) and`,
    "with new API keys; nobody can log in yet. Next:",
    "  - give people a way in: password-reset emails (send-password-resets --only-never-logged-in,",
    "    where available), or `npx parley set-password --email ADDRESS` per person, or an SSO provider;",
    "  - bots and integrations need their new keys: `npx parley api-key --email BOT_ADDRESS`;",
    "  - start the server (npm start) and check the organization's settings.",
  ];
  return lines.join("\n");
}

/** Runs an import command: the source's path is the one argument; it opens (and migrates) the store itself. */
export async function runImportCommand<S extends ImportSummary>(command: ImportCommand<S>, argv: string[], config: Config): Promise<void> {
  if (argv.length !== 1 || argv[0].startsWith("-")) throw new CliError(`usage: parley ${command.name} ${command.usage}`, 2);
  const store = openStore(config);
  try {
    await migrate(store);
    const started = Date.now();
    const summary = await command.run(
      { db: store.db, engine: store.engine, uploadsDir: config.uploadsDir, externalUrl: config.externalUrl, log: (line) => warn(`${command.name}: ${line}`) },
      argv[0],
    );
    print(report(command, summary, (Date.now() - started) / 1000));
  } catch (err) {
    if (err instanceof ImportRefusedError) throw new CliError(`refused, nothing was imported: ${err.message}`);
    throw err;
  } finally {
    await store.close();
  }
}

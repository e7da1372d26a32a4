/**
 * The commands on a store as a whole: backups, restores and imports. Unlike the admin commands
 * (commands.ts) they do not open the store and its organization first: a backup reads a running
 * server's store from beside it, and a restore or an import needs an empty one.
 */
import type { Config } from "../config.ts";
import { runBackup } from "./backup.ts";
import { runImportMattermost } from "./import-mattermost.ts";
import { runImportSlack } from "./import-slack.ts";
import { runExport } from "./export.ts";
import { runImportZulip } from "./import-zulip.ts";
import { runRestore, runVerifyBackup } from "./restore.ts";

/** One such command: its usage line, what it does, and how it runs on the configuration. */
export type StoreCommand = { usage: string; summary: string; run(argv: string[], config: Config): Promise<void> };

/** Every store command by name. */
export const STORE_COMMANDS: Record<string, StoreCommand> = {
  backup: {
    usage: "backup --output FILE",
    summary: "write a backup of the running server (database, uploads, zuliprc) to a new .tar.gz file (README.md: Backups)",
    run: runBackup,
  },
  restore: {
    usage: "restore FILE",
    summary: "restore a backup into an empty DATA_DIR (and, with DATABASE_URL, an empty PostgreSQL database)",
    run: runRestore,
  },
  "verify-backup": {
    usage: "verify-backup FILE",
    summary: "read a backup through and check every file in it against its manifest, writing nothing",
    run: (argv) => runVerifyBackup(argv),
  },
  "import-zulip": {
    usage: "import-zulip EXPORT.tar.gz|EXPORT_DIR",
    summary: "import a Zulip organization export (.tar.gz or its directory) into an empty store, keeping every id",
    run: runImportZulip,
  },
  "import-slack": {
    usage: "import-slack EXPORT.zip|EXPORT_DIR",
    summary: "import a Slack export (.zip or its folder) into an empty store: threads as topics, DMs, reactions, files (docs/import.md)",
    run: runImportSlack,
  },
  "import-mattermost": {
    usage: "import-mattermost EXPORT.jsonl|EXPORT_DIR [--team NAME]",
    summary: "import one team of a Mattermost bulk export (its .jsonl, or its folder with data/) into an empty store: threads as topics, DMs, reactions, custom emoji, files (docs/import.md)",
    run: runImportMattermost,
  },
  export: {
    usage: "export [--public | --full-with-consent | --full] --output FILE.tar.gz",
    summary: "write the organization as a Zulip export (.tar.gz) that import-zulip, here or on Zulip, reads (docs/export.md)",
    run: runExport,
  },
};

/**
 * `parley export [--public | --full-with-consent | --full] --output FILE.tar.gz`: writes the
 * store's organization as a Zulip export (actions/export/), which `import-zulip` (here or on
 * upstream Zulip) reads. It opens the store beside a running server, as backup does, and only
 * reads it; progress goes to stderr, the summary and the file's path to stdout.
 */
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.ts";
import { openStore } from "../store/db.ts";
import { realmList } from "../store/export/organization-rows.ts";
import { exportOrganization, type ExportKind } from "../actions/export/export-organization.ts";
import { CliError, parseOptions } from "./args.ts";
import { print, warn } from "./terminal.ts";

const SPECS = {
  public: { flag: true, help: "only public channels and public data" },
  "full-with-consent": { flag: true, help: "public data, and the private data of users who allowed its export" },
  full: { flag: true, help: "everything (the default)" },
  output: { required: true, help: "the .tar.gz to write (a new file)" },
} as const;

function kindOf(opts: Record<string, string | undefined>): ExportKind {
  const chosen = (["public", "full-with-consent", "full"] as const).filter((k) => opts[k] === "true");
  if (chosen.length > 1) throw new CliError("choose one of --public, --full-with-consent and --full", 2);
  return chosen[0] === "public" ? "public" : chosen[0] === "full-with-consent" ? "full_with_consent" : "full";
}

/** export: the organization of the store into a new Zulip export file. */
export async function runExport(argv: string[], config: Config): Promise<void> {
  const opts = parseOptions(argv, SPECS);
  const kind = kindOf(opts);
  const output = path.resolve(opts.output ?? "");
  if (fs.existsSync(output)) throw new CliError(`${output} already exists: the export is written to a new file`);
  if (!fs.existsSync(path.dirname(output))) throw new CliError(`${path.dirname(output)} does not exist`);
  const store = openStore(config);
  try {
    const realms = await realmList(store.db);
    if (realms.length !== 1) throw new CliError(realms.length === 0 ? "the store holds no organization to export" : `the store holds ${realms.length} organizations; export expects one`);
    const started = Date.now();
    const result = await exportOrganization({ db: store.db, engine: store.engine, uploadsDir: config.uploadsDir, log: (line) => warn(`export: ${line}`) }, realms[0].id, kind, output);
    print(
      [
        `Exported "${realms[0].name}" (${kind}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${result.messages} messages, ${result.bytes} bytes.`,
        output,
      ].join("\n"),
    );
  } finally {
    await store.close();
  }
}

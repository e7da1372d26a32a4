/** The `parley` command: `serve` (the default) and the admin commands of src/cli/commands.ts. */
import { systemClock } from "./clock.ts";
import { loadConfig, type Config } from "./config.ts";
import { migrate, openStore } from "./store/db.ts";
import { getDefaultRealm } from "./store/realm/realms.ts";
import { CliError, parseOptions, usageLine } from "./cli/args.ts";
import { COMMANDS, type Command } from "./cli/commands.ts";
import { STORE_COMMANDS } from "./cli/store-commands.ts";
import { parseServeOptions, reportToLauncher, runCluster } from "./cli/cluster.ts";
import { print, readLine, warn } from "./cli/terminal.ts";

async function serve(config: Config): Promise<void> {
  // Loaded only here: admin commands start faster without the HTTP stack.
  const { startServer } = await import("./server.ts");
  const server = await startServer(config);
  // SIGTERM or SIGINT: answer the waiting polls, save the event queues and exit (server.ts close).
  // The same signal again kills the process at once (its queues are then lost, as in a crash).
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`parley serve: could not stop cleanly: ${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // One of `serve --processes N`'s processes: the launcher waits for this (cli/cluster.ts).
  reportToLauncher(server.url, stop);
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, cmd]) => `  ${usageLine(name, cmd.options)}\n      ${cmd.summary}`);
  lines.push(...Object.values(STORE_COMMANDS).map((cmd) => `  ${cmd.usage}\n      ${cmd.summary}`));
  const serveHelp = "  serve [--processes N]\n      run the server (the default); with --processes N, N of them on ports PORT to PORT+N-1 (needs DATABASE_URL and REDIS_URL)";
  return ["usage: parley [serve [--processes N]]", "       parley <command> [options]", "", "commands:", serveHelp, ...lines, ""].join("\n");
}

/** Runs one admin command on the configured store and its default organization. */
async function runAdmin(command: Command, argv: string[], config: Config): Promise<void> {
  const opts = parseOptions(argv, command.options);
  const store = openStore(config);
  try {
    await migrate(store);
    const realm = await getDefaultRealm(store.db);
    if (!realm) throw new CliError("no organization exists yet: start the server once (npm start) to create it");
    await command.run({ db: store.db, store, realm, config, clock: systemClock, print, warn, readLine }, opts);
  } finally {
    await store.close();
  }
}

function loadConfigOrFail(): Config {
  try {
    return loadConfig();
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err), 2);
  }
}

/** Runs the command named in argv; failures print one line on stderr and set a non-zero exit code. */
async function main(argv: string[]): Promise<void> {
  const [name = "serve", ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    return;
  }
  try {
    if (name === "serve") {
      const processes = parseServeOptions(rest);
      if (processes === 1) return await serve(loadConfigOrFail());
      return await runCluster(loadConfigOrFail(), processes);
    }
    const storeCommand = STORE_COMMANDS[name];
    if (storeCommand) return await storeCommand.run(rest, loadConfigOrFail());
    const command = COMMANDS[name];
    if (!command) throw new CliError(`unknown command '${name}'\n\n${usage()}`, 2);
    await runAdmin(command, rest, loadConfigOrFail());
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    process.stderr.write(`parley ${name}: ${err.message}\n`);
    process.exitCode = err.exitCode;
  }
}

await main(process.argv.slice(2));

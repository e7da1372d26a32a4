/** The `parley` command: `serve` (the default) and the admin commands. */
import { loadConfig } from "./config.ts";
import { startServer } from "./server.ts";

async function serve(): Promise<void> {
  const server = await startServer(loadConfig());
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** Runs the command named in argv. */
export async function main(argv: string[]): Promise<void> {
  const [command = "serve"] = argv;
  if (command === "serve") return serve();
  process.stderr.write(`parley: unknown command '${command}'\n`);
  process.exitCode = 2;
}

await main(process.argv.slice(2));

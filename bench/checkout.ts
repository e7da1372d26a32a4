/**
 * What the interleaved A/B tools (bench/ab.ts, ab-fanout.ts, ab-poll.ts) share: reading the
 * checkouts from the command line, starting a Parley server from each (its own code on its own
 * store), and the median they report.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "../test/helpers/ports.ts";
import { freshStore, type FreshStore, type StoreKind } from "../test/helpers/stores.ts";
import { profileFlags, type BenchServer } from "./servers.ts";

/** Extra V8 flags for the servers (BENCH_NODE_FLAGS), e.g. "--no-turbo-inlining" so a profile charges each function its own time. */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
/** BENCH_PROFILE_DIR writes each checkout's server CPU profile to <dir>/<checkout name>/, as in run.ts. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR || null;

/** Starts `bin/parley.js serve` of the checkout in `dir` on `store`, rate limits off; resolves once it answers. */
export async function startCheckout(dir: string, store: FreshStore): Promise<BenchServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: store.dataDir, EXTERNAL_URL: url, LOG_LEVEL: "warn", RATE_LIMITS: "off" };
  delete env.DATABASE_URL;
  if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
  delete env.PARLEY_TEST_CONTROL;
  const flags = profileFlags({ profileDir: PROFILE_DIR }, path.basename(dir));
  const child = spawn(process.execPath, [...NODE_FLAGS, ...flags, path.join(dir, "bin/parley.js"), "serve"], { cwd: dir, env, stdio: ["ignore", "inherit", "inherit"] });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/v1/server_settings`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${dir}: server did not answer`);
    await new Promise((r) => setTimeout(r, 200));
  }
  process.on("exit", () => child.kill("SIGKILL"));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Waits for the exit, so a CPU profile is written before the next step.
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  return { url, pid: child.pid ?? 0, output: () => "", stop };
}

/** The median of a list of numbers (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The checkouts an A/B tool was given on its command line (at least two), as absolute paths. */
export function checkoutArgs(tool: string): string[] {
  const dirs = process.argv.slice(2).map((d) => path.resolve(d));
  if (dirs.length < 2) throw new Error(`usage: npx tsx bench/${tool} <checkout> <checkout> [...]`);
  return dirs;
}

/**
 * Prepares each checkout in turn on a fresh store of `kind`. Each store is added to `stores` as
 * soon as it exists, so the caller can drop them all even when a later one fails.
 */
export async function prepareEach<T>(dirs: string[], kind: StoreKind, stores: FreshStore[], prepare: (dir: string, store: FreshStore) => Promise<T>): Promise<T[]> {
  const prepared: T[] = [];
  for (const dir of dirs) {
    const store = await freshStore(kind);
    stores.push(store);
    prepared.push(await prepare(dir, store));
  }
  return prepared;
}

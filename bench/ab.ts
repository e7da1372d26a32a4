/**
 * Interleaved A/B of the send scenario: `npx tsx bench/ab.ts <checkout> <checkout> [...]`.
 * Starts one Parley server from each checkout (each on a fresh store of BENCH_AB_STORE, sqlite
 * by default or postgres, with the same organization), then sends to them in turn, in short bursts, for BENCH_AB_ROUNDS rounds, and
 * prints the server CPU per send of every burst and each checkout's median. Bursts alternate
 * within seconds, so other load on a noisy machine falls on every checkout alike; a whole-run
 * A/B (`npm run bench` in two checkouts) cannot tell a 20% change from that noise.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { freshStore, type FreshStore } from "../test/helpers/stores.ts";
import { createChannel } from "./org.ts";
import { freePort } from "../test/helpers/ports.ts";
import { cpuSeconds, profileFlags, type BenchServer } from "./servers.ts";
import { runLoadInChild } from "./load.ts";
import { sendRequests } from "./scenario-send.ts";

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 12);
const BURST_SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 3);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 50);
/** BENCH_PROFILE_DIR writes each checkout's server CPU profile to <dir>/<checkout name>/, as in run.ts. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR || null;
/** Extra V8 flags for the servers, e.g. "--no-turbo-inlining" so a profile charges each function its own time. */
const STORE = process.env.BENCH_AB_STORE === "postgres" ? "postgres" : "sqlite";
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);

async function startCheckout(dir: string, store: FreshStore): Promise<BenchServer> {
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dirs = process.argv.slice(2).map((d) => path.resolve(d));
  if (dirs.length < 2) throw new Error("usage: npx tsx bench/ab.ts <checkout> <checkout> [...]");
  const stores: FreshStore[] = [];
  const targets: Array<{ dir: string; server: BenchServer; requests: ReturnType<typeof sendRequests>; cpu: number[] }> = [];
  try {
    for (const dir of dirs) {
      const store = await freshStore(STORE);
      stores.push(store);
      // Each checkout seeds with its own code, so its migrations match its server.
      const { createOrg } = (await import(path.join(dir, "bench/org.ts"))) as typeof import("./org.ts");
      const org = await createOrg(store, SUBSCRIBERS);
      const server = await startCheckout(dir, store);
      const channelId = await createChannel(server.url, org.users[0], "send bench", org.users);
      targets.push({ dir, server, requests: sendRequests(channelId, org.users), cpu: [] });
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round, so no checkout always runs first.
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const t of order) {
        const before = cpuSeconds(t.server.pid) ?? 0;
        const load = await runLoadInChild({ url: t.server.url, requests: t.requests, concurrency: SENDERS, seconds: BURST_SECONDS, warmupSeconds: 0.5, expectBody: '"result":"success"' });
        const after = cpuSeconds(t.server.pid) ?? 0;
        const ms = ((after - before) * 1000) / load.answered;
        t.cpu.push(ms);
        console.log(`round ${round + 1} ${path.basename(t.dir)}: ${ms.toFixed(3)} ms CPU per send, ${Math.round(load.rps)} sends/s, ${load.errors} errors`);
      }
    }
    for (const t of targets) console.log(`${path.basename(t.dir)}: median ${median(t.cpu).toFixed(3)} ms CPU per send over ${t.cpu.length} bursts`);
  } finally {
    for (const t of targets) await t.server.stop();
    for (const s of stores) await s.drop();
  }
}

await main();

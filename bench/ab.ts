/**
 * Interleaved A/B of the send scenario: `npx tsx bench/ab.ts <checkout> <checkout> [...]`.
 * Starts one Parley server from each checkout (each on a fresh store of BENCH_AB_STORE, sqlite
 * by default or postgres, with the same organization), then sends to them in turn, in short bursts, for BENCH_AB_ROUNDS rounds, and
 * prints the server CPU per send of every burst and each checkout's median. Bursts alternate
 * within seconds, so other load on a noisy machine falls on every checkout alike; a whole-run
 * A/B (`npm run bench` in two checkouts) cannot tell a 20% change from that noise.
 */
import path from "node:path";
import { freshStore, type FreshStore } from "../test/helpers/stores.ts";
import { createChannel } from "./org.ts";
import { median, startCheckout } from "./checkout.ts";
import { cpuSeconds, type BenchServer } from "./servers.ts";
import { runLoadInChild } from "./load.ts";
import { sendRequests } from "./scenario-send.ts";

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 12);
const BURST_SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 3);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 50);
const STORE = process.env.BENCH_AB_STORE === "postgres" ? "postgres" : "sqlite";

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

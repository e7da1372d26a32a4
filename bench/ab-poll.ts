/**
 * Interleaved A/B of one poll's cost: `npx tsx bench/ab-poll.ts <checkout> <checkout> [...]`.
 * Starts one Parley server from each checkout (each on a fresh SQLite store with four users, a
 * queue each) and the bare Node `http` server, then loads each in turn with GET /events
 * (dont_block: the whole request path of a poll, answered at once with no events), 4 clients,
 * BENCH_AB_SECONDS-second bursts, BENCH_AB_ROUNDS rounds, and prints the server CPU per request
 * of every burst and each one's median. Bursts alternate within seconds, so other load on a
 * noisy machine falls on every checkout alike.
 */
import path from "node:path";
import type { FreshStore } from "../test/helpers/stores.ts";
import { checkoutArgs, median, prepareEach, startCheckout } from "./checkout.ts";
import type { LoadRequest } from "./load.ts";
import { apiCall, basicAuth } from "./org.ts";
import { loadServer, startBaseline, type BenchServer } from "./servers.ts";

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 10);
const BURST_SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 2);
const CLIENTS = 4;

type Target = { name: string; server: BenchServer; requests: LoadRequest[]; expectBody?: string; cpuUs: number[] };

async function prepare(dir: string, store: FreshStore): Promise<Target> {
  // Each checkout seeds with its own code, so its migrations match its server.
  const { createOrg } = (await import(path.join(dir, "bench/org.ts"))) as typeof import("./org.ts");
  const org = await createOrg(store, CLIENTS);
  const server = await startCheckout(dir, store);
  const requests: LoadRequest[] = [];
  for (const user of org.users) {
    const queue = await apiCall(server.url, user, "POST", "/register", { event_types: JSON.stringify(["message"]) });
    const query = new URLSearchParams({ queue_id: String(queue.queue_id), last_event_id: "-1", dont_block: "true" });
    requests.push({ method: "GET", path: `/api/v1/events?${query}`, headers: { authorization: basicAuth(user) } });
  }
  return { name: path.basename(dir), server, requests, expectBody: '"events":[]', cpuUs: [] };
}

async function main(): Promise<void> {
  const dirs = checkoutArgs("ab-poll.ts");
  const stores: FreshStore[] = [];
  const targets: Target[] = [];
  try {
    targets.push(...(await prepareEach(dirs, "sqlite", stores, prepare)));
    const bare = await startBaseline();
    targets.push({ name: "bare http server", server: bare, requests: [{ method: "GET", path: "/" }], cpuUs: [] });
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round, so no checkout always runs first.
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const t of order) {
        const load = await loadServer(t.server, { requests: t.requests, concurrency: CLIENTS, seconds: BURST_SECONDS, warmupSeconds: 0.5, expectBody: t.expectBody });
        if (load.errors > 0) throw new Error(`${t.name}: ${load.errors} errors, the first: ${load.firstError}`);
        t.cpuUs.push((load.serverCpuMsPerRequest ?? NaN) * 1000);
        console.log(`round ${round + 1} ${t.name}: ${t.cpuUs.at(-1)?.toFixed(1)} µs CPU per request, ${Math.round(load.rps)} requests/s`);
      }
    }
    for (const t of targets) console.log(`${t.name}: median ${median(t.cpuUs).toFixed(1)} µs CPU per request over ${t.cpuUs.length} bursts`);
  } finally {
    for (const t of targets) await t.server.stop();
    for (const s of stores) await s.drop();
  }
}

await main();

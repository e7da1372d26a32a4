/**
 * Interleaved A/B of event delivery: `npx tsx bench/ab-fanout.ts <checkout> <checkout> [...]`.
 * Starts one Parley server from each checkout (each on a fresh SQLite store with the same
 * organization), registers BENCH_AB_QUEUES queues on each and holds a long poll on every one,
 * then times one channel message to all of them on each server in turn, BENCH_AB_ROUNDS times:
 * how long until every poll had it, and the server's CPU over that time (user and system, from
 * /proc). Rounds alternate within seconds, so other load on a noisy machine falls on every
 * checkout alike. This process holds every server's polls: the queues of all checkouts together
 * must fit in its file descriptor limit (`ulimit -n`).
 */
import crypto from "node:crypto";
import path from "node:path";
import type { FreshStore } from "../test/helpers/stores.ts";
import { checkoutArgs, median, prepareEach, startCheckout } from "./checkout.ts";
import { createChannel, type BenchOrg } from "./org.ts";
import { checkDescriptorLimit, PollSet, registerQueues, type BenchQueue } from "./poll-set.ts";
import { RawConnection } from "./raw-http.ts";
import { sendRequest } from "./scenario-fanout.ts";
import { cpuSeconds, type BenchServer } from "./servers.ts";

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 8);
const QUEUES = Number(process.env.BENCH_AB_QUEUES ?? 6000);
const USERS = Math.min(QUEUES, 1000);
const REGISTER_LIMIT_SECONDS = 300;

/** The lower quartile: noise on a shared machine only ever adds time, so it shows the cost with less of it. */
const lowerQuartile = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 4)];

type Target = { dir: string; server: BenchServer; org: BenchOrg; channelId: number; polls: PollSet; sender: RawConnection; wallMs: number[]; cpuMs: number[] };

async function prepare(dir: string, store: FreshStore): Promise<Target> {
  // Each checkout seeds with its own code, so its migrations match its server.
  const { createOrg } = (await import(path.join(dir, "bench/org.ts"))) as typeof import("./org.ts");
  const org = await createOrg(store, USERS);
  const server = await startCheckout(dir, store);
  const channelId = await createChannel(server.url, org.users[0], "fan-out A/B", org.users);
  const queues: BenchQueue[] = [];
  await registerQueues(server.url, org.users, queues, QUEUES, REGISTER_LIMIT_SECONDS, path.basename(dir));
  const polls = new PollSet(server, queues);
  await polls.open();
  return { dir, server, org, channelId, polls, sender: new RawConnection(new URL(server.url)), wallMs: [], cpuMs: [] };
}

async function main(): Promise<void> {
  const dirs = checkoutArgs("ab-fanout.ts");
  checkDescriptorLimit(QUEUES * dirs.length);
  const stores: FreshStore[] = [];
  const targets: Target[] = [];
  try {
    targets.push(...(await prepareEach(dirs, "sqlite", stores, prepare)));
    // Round 0 warms every server up (its first delivery compiles code) and is not recorded.
    for (let round = 0; round <= ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const t of order) {
        // Each server settled at the end of its previous round (timeSend) and has been idle since.
        const marker = `abmark${crypto.randomBytes(6).toString("hex")}`;
        const bytes = sendRequest(t.server.url, t.org.users[0], t.channelId, `A/B round ${round}: ${marker}`);
        const timed = await t.polls.timeSend(marker, () => t.sender.request(bytes), () => cpuSeconds(t.server.pid));
        if (round === 0) continue;
        t.wallMs.push(timed.allMs);
        t.cpuMs.push(timed.serverCpuMs ?? NaN);
        console.log(`round ${round} ${path.basename(t.dir)}: every poll answered after ${timed.allMs.toFixed(1)} ms, server CPU ${timed.serverCpuMs?.toFixed(0)} ms`);
      }
    }
    for (const t of targets) {
      console.log(
        `${path.basename(t.dir)}: ${QUEUES} queues, over ${t.wallMs.length} rounds: every poll answered after ${median(t.wallMs).toFixed(1)} ms (median; lower quartile ${lowerQuartile(t.wallMs).toFixed(1)}), server CPU ${median(t.cpuMs).toFixed(0)} ms (lower quartile ${lowerQuartile(t.cpuMs).toFixed(0)})`,
      );
    }
  } finally {
    for (const t of targets) {
      t.polls.close();
      t.sender.close();
      await t.server.stop();
    }
    for (const s of stores) await s.drop();
  }
}

await main();

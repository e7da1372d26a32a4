/**
 * Scenario `cluster` (issue 15): Parley on PostgreSQL and Redis behind nginx (deploy/nginx.conf),
 * with one process, as many as the machine has cores, and three (bench/cluster-layout.ts), on
 * one fresh database.
 * - Sends: the send scenario's load (BENCH_SUBSCRIBERS subscribers, BENCH_SENDERS senders)
 *   through nginx, first with one process behind it, then with as many as the machine has cores
 *   when that is between one and three, then with three (each layout the previous one's
 *   processes plus those started then). Each layout gets an unrecorded warm-up run first (every
 *   process compiles its send path; with three, it lasts three times as long, so each process
 *   serves as many warm-up sends as the single one), then the measured run, over which the CPU
 *   of every part is read from /proc (bench/part-cpu.ts: Parley, PostgreSQL, Redis, nginx) and
 *   divided by the answered sends. On
 *   a 2-core machine three processes cannot send more; the figure that says whether capacity
 *   grows with cores is the CPU per send of three over one's (target: at most 1.25), next to the
 *   bare server's own ratio behind the same nginx (bench/cluster-bare.ts). The three processes
 *   then get the same load per process as the single one had (three times the senders): with as
 *   many cores as processes, a growing team adds senders as it adds processes, and each process's
 *   group commits stay as large as the single one's (fewer senders per process batch fewer sends
 *   per commit, which costs CPU before anything is shared); not in the quick look.
 * - Fan-out across three: queues registered through nginx (its round robin spreads them over the
 *   processes), a long poll on each through nginx, and timed sends as in bench/scenario-fanout.ts,
 *   next to the bare long-poll server reached directly, and to the bare long-poll server as the
 *   same layout: three of its processes behind the same nginx configuration, every poll and
 *   answer crossing nginx, the send given to each of them at once.
 */
import os from "node:os";
import { findNginx } from "../test/helpers/nginx.ts";
import { consecutiveFreePorts } from "../test/helpers/ports.ts";
import { freshStore, type FreshStore } from "../test/helpers/stores.ts";
import { measureBareLayouts, type BareLayout } from "./cluster-bare.ts";
import { behindNginx, checkRedis, countedProcesses, dropRedisKeys, IDLE_LIMIT_MS, measureLayoutLoad, startNginx, startProcesses, type Nginx } from "./cluster-layout.ts";
import { createChannel, createOrg, type BenchOrg, type BenchUser } from "./org.ts";
import type { PartCpu } from "./part-cpu.ts";
import { checkDescriptorLimit, registerQueues, type BenchQueue } from "./poll-set.ts";
import { bareQueues, measureBare, timeDelivery, type FanoutResult, type FanoutSize } from "./scenario-fanout.ts";
import { sendRequests } from "./scenario-send.ts";
import { BASELINE_SCRIPTS, startBaseline, waitUntilIdle, type BenchServer, type MeasuredLoad } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";

/** The processes of the larger layout. */
export const CLUSTER_PROCESSES = 3;

/**
 * Unrecorded sends before the fan-out across processes is timed. Each process compiles its own
 * delivery path: the bare long-poll server as three processes answered 10,000 polls after 446-484
 * ms in the send after one warm-up, and after 262-335 ms from the next on (one process: one
 * warm-up is enough).
 */
const CLUSTER_WARMUPS = 2;

/**
 * The layouts whose sends are measured: one process, as many as this machine has cores (when
 * that lies between; not in the quick look, which must stay under two minutes), and
 * CLUSTER_PROCESSES. The middle one tells the cost of more processes from the cost of more
 * processes than cores.
 */
export function clusterLayouts(quick: boolean, cores = os.availableParallelism()): number[] {
  const middle = quick ? 1 : Math.min(Math.max(cores, 1), CLUSTER_PROCESSES);
  return [...new Set([1, middle, CLUSTER_PROCESSES])].sort((a, b) => a - b);
}

/** The sends of one layout: its senders, the load, and the CPU milliseconds per answered send of each part (null without /proc). */
export type ClusterSends = { processes: number; senders: number; load: MeasuredLoad; cpuMsPerSend: PartCpu | null };

/** How the fan-out's queues fell on the processes, per queue count. */
export type QueueSpread = { queues: number; perProcess: number[] };

/** The cluster scenario's figures; `bare`: the bare server behind nginx with each layout's count of processes (bench/cluster-bare.ts). */
export type ClusterResult = { store: "postgres"; subscribers: number; senders: number; sends: ClusterSends[]; bare: BareLayout[]; fanout: FanoutResult; spread: QueueSpread[] };

/**
 * A warm-up run (unless the layout has just sent: `warmed`), then the measured one with every
 * part's CPU read around it, with `senders` senders.
 */
async function measureSends(
  layout: BenchServer,
  nginx: Nginx,
  processes: readonly BenchServer[],
  sending: { org: BenchOrg; channelId: number; senders: number; warmed: boolean },
  settings: BenchSettings,
  fresh: FreshStore,
): Promise<ClusterSends> {
  const { org, channelId, senders } = sending;
  const common = { requests: sendRequests(channelId, org.users.slice(0, settings.subscribers)), concurrency: senders, expectBody: '"result":"success"' };
  const counted = countedProcesses(nginx, processes, fresh);
  const { load, cpuMsPerRequest: cpuMsPerSend } = await measureLayoutLoad(layout, counted, common, settings, sending.warmed);
  console.log(`    ${processes.length} process(es) behind nginx, ${senders} senders: ${Math.round(load.rps)} sends/s, ${load.errors} errors`);
  return { processes: processes.length, senders, load, cpuMsPerSend };
}

/** Queues registered through nginx for each count, timed sends, and the bare long-poll server beside them. */
async function fanoutAcross(layout: BenchServer, org: BenchOrg, channelId: number, users: number, settings: BenchSettings): Promise<{ fanout: FanoutResult; spread: QueueSpread[] }> {
  const label = `PostgreSQL, ${CLUSTER_PROCESSES} processes behind nginx`;
  const holders = org.users.slice(0, users);
  const queues: BenchQueue[] = [];
  const sizes: FanoutSize[] = [];
  const spread: QueueSpread[] = [];
  let registerSeconds = 0;
  for (const count of settings.queues) {
    const name = `${label}, ${count.toLocaleString("en-US")} queues`;
    registerSeconds += await registerQueues(layout.url, holders, queues, count, settings.registerLimitSeconds - registerSeconds, name);
    await waitUntilIdle(layout, IDLE_LIMIT_MS);
    const byProcess = new Map<string, number>();
    for (const q of queues) {
      const processId = q.id.split(":")[0];
      byProcess.set(processId, (byProcess.get(processId) ?? 0) + 1);
    }
    spread.push({ queues: count, perProcess: [...byProcess.values()] });
    console.log(`    ${name}: registered in ${registerSeconds.toFixed(1)} s, ${[...byProcess.values()].join(" / ")} per process`);
    const timed = await timeDelivery(layout, queues.slice(0, count), org.users[0], channelId, settings.fanoutRounds, name, { warmups: CLUSTER_WARMUPS });
    sizes.push({ queues: count, registerSeconds, rssIdle: null, rssPolling: null, parley: timed.delivery, bare: null, bareRss: null });
  }
  for (const size of sizes) {
    size.bare = (await measureBare(size.queues, holders, settings)).delivery;
    size.bareBehindNginx = await measureBareBehindNginx(size.queues, holders, settings.fanoutRounds);
    size.bareProcesses = CLUSTER_PROCESSES;
  }
  return { fanout: { store: "postgres", label, users: holders.length, rounds: settings.fanoutRounds, delivery: true, rssStarted: null, sizes }, spread };
}

/**
 * The bare long-poll server as the same layout (CLUSTER_PROCESSES of them behind the same nginx),
 * timed as Parley's processes are; null (with the reason printed) when that layout fails, which
 * leaves the rest of the scenario standing.
 */
async function measureBareBehindNginx(count: number, users: BenchUser[], rounds: number): Promise<FanoutSize["bare"]> {
  try {
    return await timeBareBehindNginx(count, users, rounds);
  } catch (err) {
    console.log(`    bare long-poll servers behind nginx, ${count.toLocaleString("en-US")} polls: not measured: ${String(err).split("\n")[0]}`);
    return null;
  }
}

/**
 * The bare long-poll server as CLUSTER_PROCESSES processes behind nginx, the polls spread evenly:
 * queue ids name each one's port, so nginx routes a poll to its own upstream, with its kept
 * connections (deploy/nginx.conf), as it routes Parley's. The send goes to every one of them at
 * once, where Parley's processes pass it on through Redis.
 */
async function timeBareBehindNginx(count: number, users: BenchUser[], rounds: number): Promise<FanoutSize["bare"]> {
  const bares: BenchServer[] = [];
  try {
    for (let i = 0; i < CLUSTER_PROCESSES; i++) bares.push(await startBaseline(BASELINE_SCRIPTS.longPoll));
    const ports = bares.map((b) => Number(new URL(b.url).port));
    const nginx = await startNginx(ports);
    try {
      const label = `bare long-poll server (${CLUSTER_PROCESSES} processes) behind nginx, ${count.toLocaleString("en-US")} polls`;
      const queues = bareQueues(count, users).map((q, k) => ({ ...q, id: `${ports[k % ports.length]}:${q.id}` }));
      const layout: BenchServer = { ...bares[0], url: nginx.url, pids: bares.map((b) => b.pid) };
      return (await timeDelivery(layout, queues, users[0], 0, rounds, label, { releaseUrls: bares.map((b) => b.url), warmups: CLUSTER_WARMUPS })).delivery;
    } finally {
      await nginx.stop();
    }
  } finally {
    await Promise.all(bares.map((b) => b.stop()));
  }
}

/** Runs the cluster scenario on a fresh PostgreSQL database; every process it starts is stopped, the database dropped and the Redis keys deleted. */
export async function runClusterScenario(settings: BenchSettings): Promise<ClusterResult> {
  const largest = settings.queues[settings.queues.length - 1] ?? 0;
  checkDescriptorLimit(largest);
  findNginx();
  await checkRedis();
  const fresh = await freshStore("postgres");
  const stops: (() => Promise<void>)[] = [];
  const processStops: (() => Promise<void>)[] = [];
  const outputs: (() => string)[] = [];
  try {
    const ports = await consecutiveFreePorts(CLUSTER_PROCESSES);
    const layouts = clusterLayouts(settings.quick);
    const nginxes: Nginx[] = [];
    for (const count of layouts) {
      nginxes.push(await startNginx(ports.slice(0, count)));
      stops.push(nginxes[nginxes.length - 1].stop);
    }
    const nginxAll = nginxes[nginxes.length - 1];
    const queueUsers = Math.min(settings.queueUsers, largest);
    const org = await createOrg(fresh, Math.max(settings.subscribers, queueUsers));
    // Every process tells clients the largest layout's site: the smaller ones only measure sends.
    const all: BenchServer[] = [];
    const sends: ClusterSends[] = [];
    let sendChannel = 0;
    let fanoutChannel = 0;
    let largestLayout: BenchServer | null = null;
    for (const [i, count] of layouts.entries()) {
      const started = await startProcesses(fresh, ports.slice(all.length, count), nginxAll.url);
      processStops.push(...started.map((p) => p.stop));
      all.push(...started);
      const layout = behindNginx(nginxes[i], all);
      outputs.push(nginxes[i].output, ...started.map((p) => p.output));
      if (i === 0) {
        const owner = org.users[0];
        sendChannel = await createChannel(layout.url, owner, "cluster send bench", org.users.slice(0, settings.subscribers));
        fanoutChannel = await createChannel(layout.url, owner, "cluster fan-out bench", org.users.slice(0, queueUsers));
      } else {
        await waitUntilIdle(layout, IDLE_LIMIT_MS);
      }
      const sending = { org, channelId: sendChannel, senders: settings.senders, warmed: false };
      sends.push(await measureSends(layout, nginxes[i], all, sending, settings, fresh));
      // Not in the quick look (as the middle layout): it must stay under two minutes.
      if (count === CLUSTER_PROCESSES && !settings.quick) sends.push(await measureSends(layout, nginxes[i], all, { ...sending, senders: settings.senders * count, warmed: true }, settings, fresh));
      largestLayout = layout;
    }
    if (largestLayout === null) throw new Error("no cluster layout");
    const bare = await measureBareLayouts(layouts, sendRequests(sendChannel, org.users.slice(0, settings.subscribers)), settings);
    const { fanout, spread } = await fanoutAcross(largestLayout, org, fanoutChannel, queueUsers, settings);
    return { store: "postgres", subscribers: settings.subscribers, senders: settings.senders, sends, bare, fanout, spread };
  } catch (err) {
    // What nginx and the processes logged (warnings and errors) says more than the client's error.
    const logged = outputs.map((o) => o().trim()).filter((o) => o !== "");
    if (logged.length > 0) console.error(`    nginx and Parley logged:\n${logged.join("\n").slice(-4000)}`);
    throw err;
  } finally {
    // nginx first, then the Parley processes together.
    for (const stop of stops) await stop();
    await Promise.all(processStops.map((stop) => stop()));
    await fresh.drop();
    await dropRedisKeys(fresh);
  }
}

/**
 * The ceiling of the cluster scenario's CPU ratio: the bare Node `http` server behind the same
 * nginx configuration, one process and then three, under the send scenario's load. Its CPU per
 * request (the bare processes and nginx; no database, no Redis) with three processes over one's
 * is what this machine charges for spreading one load over more processes than it has cores,
 * before any server work: Parley's ratio reads against it.
 */
import { startNginx } from "./cluster-layout.ts";
import { cpuBetween, sampleCpu } from "./part-cpu.ts";
import { BASELINE_SCRIPTS, loadServer, startBaseline, type BenchServer, type MeasuredLoad } from "./servers.ts";
import type { LoadRequest } from "./load.ts";
import type { BenchSettings } from "./settings.ts";

/** One bare layout: its load, and the CPU milliseconds per answered request of the bare processes and of nginx (null without /proc). */
export type BareLayout = { processes: number; load: MeasuredLoad; cpuMsPerRequest: { server: number; nginx: number } | null };

/** The shortest unrecorded warm-up run, in seconds (otherwise BENCH_WARMUP_SECONDS). */
const MIN_WARM_SECONDS = 0.5;

async function measureLayout(servers: readonly BenchServer[], requests: LoadRequest[], settings: BenchSettings): Promise<BareLayout> {
  const nginx = await startNginx(servers.map((s) => Number(new URL(s.url).port)));
  try {
    const layout: BenchServer = { ...servers[0], url: nginx.url, pids: servers.map((s) => s.pid) };
    const common = { requests, concurrency: settings.senders, expectBody: '"result":"success"' };
    await loadServer(layout, { ...common, seconds: Math.max(MIN_WARM_SECONDS, settings.warmupSeconds) * servers.length, warmupSeconds: 0 });
    // Only the bare processes and nginx are read; no database is named.
    const counted = { parley: servers.map((s) => s.pid), nginxMaster: nginx.masterPid, database: "" };
    const before = sampleCpu(counted);
    const load = await loadServer(layout, { ...common, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds });
    const cpu = cpuBetween(before, sampleCpu(counted));
    const perRequest = (seconds: number) => (seconds * 1000) / load.answered;
    const cpuMsPerRequest = load.answered === 0 ? null : { server: perRequest(cpu.parley), nginx: perRequest(cpu.nginx) };
    console.log(`    bare http server, ${servers.length} process(es) behind nginx: ${Math.round(load.rps)} req/s`);
    return { processes: servers.length, load, cpuMsPerRequest };
  } finally {
    await nginx.stop();
  }
}

/** The bare server behind nginx with one process, then with `processes`; every process it starts is stopped. */
export async function measureBareLayouts(processes: number, requests: LoadRequest[], settings: BenchSettings): Promise<BareLayout[]> {
  const servers: BenchServer[] = [];
  try {
    servers.push(await startBaseline(BASELINE_SCRIPTS.http));
    const one = await measureLayout(servers, requests, settings);
    while (servers.length < processes) servers.push(await startBaseline(BASELINE_SCRIPTS.http));
    const many = await measureLayout(servers, requests, settings);
    return [one, many];
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

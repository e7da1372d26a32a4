/**
 * The ceiling of the cluster scenario's CPU ratio: the bare Node `http` server behind the same
 * nginx configuration, with as many processes as each of Parley's layouts, under the send
 * scenario's load. Its CPU per request (the bare processes and nginx; no database, no Redis)
 * with three processes over one's is what this machine charges for spreading one load over more
 * processes than it has cores, before any server work: Parley's ratio reads against it.
 */
import { measureLayoutLoad, startNginx } from "./cluster-layout.ts";
import { BASELINE_SCRIPTS, startBaseline, type BenchServer, type MeasuredLoad } from "./servers.ts";
import type { LoadRequest } from "./load.ts";
import type { BenchSettings } from "./settings.ts";

/** One bare layout: its load, and the CPU milliseconds per answered request of the bare processes and of nginx (null without /proc). */
export type BareLayout = { processes: number; load: MeasuredLoad; cpuMsPerRequest: { server: number; nginx: number } | null };

async function measureLayout(servers: readonly BenchServer[], requests: LoadRequest[], settings: BenchSettings): Promise<BareLayout> {
  const nginx = await startNginx(servers.map((s) => Number(new URL(s.url).port)));
  try {
    const layout: BenchServer = { ...servers[0], url: nginx.url, pids: servers.map((s) => s.pid) };
    // Only the bare processes and nginx are read; no database is named.
    const counted = { parley: servers.map((s) => s.pid), nginxMaster: nginx.masterPid, database: "" };
    const { load, cpuMsPerRequest: cpu } = await measureLayoutLoad(layout, counted, { requests, concurrency: settings.senders, expectBody: '"result":"success"' }, settings);
    const cpuMsPerRequest = cpu && { server: cpu.parley, nginx: cpu.nginx };
    console.log(`    bare http server, ${servers.length} process(es) behind nginx: ${Math.round(load.rps)} req/s`);
    return { processes: servers.length, load, cpuMsPerRequest };
  } finally {
    await nginx.stop();
  }
}

/** The bare server behind nginx with each count of processes in `layouts` (ascending); every process it starts is stopped. */
export async function measureBareLayouts(layouts: readonly number[], requests: LoadRequest[], settings: BenchSettings): Promise<BareLayout[]> {
  const servers: BenchServer[] = [];
  const measured: BareLayout[] = [];
  try {
    for (const count of layouts) {
      while (servers.length < count) servers.push(await startBaseline(BASELINE_SCRIPTS.http));
      measured.push(await measureLayout(servers, requests, settings));
    }
    return measured;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

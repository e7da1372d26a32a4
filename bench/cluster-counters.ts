/**
 * What each send costs the cluster layout besides CPU time, per answered send, for one process
 * and for three behind nginx (bench/cluster-layout.ts, the cluster scenario's load):
 * PostgreSQL commits, Redis XADD and XREAD calls, the Parley processes' context switches (waits,
 * and preemptions while runnable) and read and write system calls, the CPU of each part, and how
 * much of the machine stayed idle. Not part of `npm run bench`: it explains the cluster table's
 * ratio. Usage: `npx tsx bench/cluster-counters.ts` (BENCH_COUNTERS_LAYOUTS=1,2,3 for other
 * layouts; BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_SENDERS, BENCH_SUBSCRIBERS as for the
 * benchmark). With `perf` installed, `perf record -a -e cpu-clock` around a layout's run (its
 * processes started with `--perf-basic-prof`) tells which code the extra CPU runs.
 */
import fs from "node:fs";
import { Redis } from "ioredis";
import pg from "pg";
import { consecutiveFreePorts } from "../test/helpers/ports.ts";
import { freshStore } from "../test/helpers/stores.ts";
import { behindNginx, checkRedis, countedProcesses, databaseName, dropRedisKeys, IDLE_LIMIT_MS, measureLayoutLoad, REDIS_URL, startNginx, startProcesses } from "./cluster-layout.ts";
import { createChannel, createOrg } from "./org.ts";
import { PARTS } from "./part-cpu.ts";
import { sendRequests } from "./scenario-send.ts";
import { waitUntilIdle, type BenchServer } from "./servers.ts";
import { loadSettings } from "./settings.ts";

/** PostgreSQL's cumulative statistics reach pg_stat_database within a second of a transaction. */
const STATS_DELAY_MS = 1200;

type Counters = Record<string, number>;

function processCounters(pids: readonly number[]): Counters {
  const out: Counters = { "Parley waits": 0, "Parley preemptions": 0, "Parley read calls": 0, "Parley write calls": 0 };
  for (const pid of pids) {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    out["Parley waits"] += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    out["Parley preemptions"] += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const io = fs.readFileSync(`/proc/${pid}/io`, "utf8");
    out["Parley read calls"] += Number(/^syscr:\s+(\d+)/m.exec(io)?.[1] ?? 0);
    out["Parley write calls"] += Number(/^syscw:\s+(\d+)/m.exec(io)?.[1] ?? 0);
  }
  return out;
}

/** The machine's CPU ticks: all, and idle (with I/O wait). */
function machineTicks(): { all: number; idle: number } {
  const ticks = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return { all: ticks.reduce((a, b) => a + b, 0), idle: ticks[3] + ticks[4] };
}

async function serviceCounters(admin: pg.Client, redis: Redis, database: string): Promise<Counters> {
  await new Promise((resolve) => setTimeout(resolve, STATS_DELAY_MS));
  const { rows } = await admin.query<{ xact_commit: string }>("select xact_commit from pg_stat_database where datname = $1", [database]);
  const calls = (name: string, info: string) => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, "m").exec(info)?.[1] ?? 0);
  const info = await redis.info("commandstats");
  return { "PostgreSQL commits": Number(rows[0]?.xact_commit ?? 0), "Redis XADD": calls("xadd", info), "Redis XREAD": calls("xread", info) };
}

async function main(): Promise<void> {
  const settings = loadSettings();
  const layouts = (process.env.BENCH_COUNTERS_LAYOUTS ?? "1,3").split(",").map(Number);
  await checkRedis();
  const fresh = await freshStore("postgres");
  const database = databaseName(fresh);
  const admin = new pg.Client({ connectionString: fresh.databaseUrl ?? "" });
  const redis = new Redis(REDIS_URL);
  const processes: BenchServer[] = [];
  const table = new Map<string, Counters>();
  try {
    await admin.connect();
    const org = await createOrg(fresh, settings.subscribers);
    const ports = await consecutiveFreePorts(Math.max(...layouts));
    let channelId = 0;
    for (const count of layouts) {
      const nginx = await startNginx(ports.slice(0, count));
      try {
        processes.push(...(await startProcesses(fresh, ports.slice(processes.length, count), nginx.url)));
        const live = processes.slice(0, count);
        const layout = behindNginx(nginx, live);
        if (channelId === 0) channelId = await createChannel(layout.url, org.users[0], "counters", org.users.slice(0, settings.subscribers));
        const common = { requests: sendRequests(channelId, org.users.slice(0, settings.subscribers)), concurrency: settings.senders, expectBody: '"result":"success"' };
        const counted = countedProcesses(nginx, live, fresh);
        await measureLayoutLoad(layout, counted, common, settings);
        await waitUntilIdle(layout, IDLE_LIMIT_MS);
        const before = { ...(await serviceCounters(admin, redis, database)), ...processCounters(counted.parley) };
        const ticks = machineTicks();
        const { load, cpuMsPerRequest } = await measureLayoutLoad(layout, counted, common, settings, true);
        const idle = machineTicks();
        const after = { ...processCounters(counted.parley), ...(await serviceCounters(admin, redis, database)) };
        const perSend: Counters = { "sends/s": Math.round(load.rps) };
        for (const [name, value] of Object.entries(after)) perSend[name] = (value - before[name]) / load.answered;
        for (const part of PARTS) if (cpuMsPerRequest) perSend[`${part} CPU ms`] = cpuMsPerRequest[part];
        perSend["machine idle %"] = (100 * (idle.idle - ticks.idle)) / (idle.all - ticks.all);
        table.set(`${count} process${count === 1 ? "" : "es"}`, perSend);
        console.log(`${count} process(es): ${Math.round(load.rps)} sends/s, ${load.errors} errors`);
      } finally {
        await nginx.stop();
      }
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await admin.end().catch(() => undefined);
    redis.disconnect();
    await fresh.drop();
    await dropRedisKeys(fresh);
  }
  const columns = [...table.keys()];
  console.log(`\n| per answered send | ${columns.join(" | ")} |\n| --- | ${columns.map(() => "---:").join(" | ")} |`);
  for (const name of Object.keys(table.get(columns[0]) ?? {})) {
    const cells = columns.map((c) => {
      const v = table.get(c)?.[name] ?? 0;
      return Number.isInteger(v) ? String(v) : v.toFixed(3);
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
}

await main();
process.exit(0);

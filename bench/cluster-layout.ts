/**
 * The layout of README.md "Several processes" for the cluster scenario: Parley processes on one
 * PostgreSQL database and Redis, each on its own port (PROCESS_ID and INTERNAL_URL left to
 * their defaults, the port), behind Debian's nginx running deploy/nginx.conf
 * (test/helpers/nginx.ts). Everything on 127.0.0.1; each process is stopped by the harness, and
 * the Redis keys the processes made are deleted at the end.
 */
import fs from "node:fs";
import { Redis } from "ioredis";
import { busChannel } from "../src/events/redis-bus.ts";
import { findNginx, prepareNginx } from "../test/helpers/nginx.ts";
import { consecutiveFreePorts, waitForPort } from "../test/helpers/ports.ts";
import type { FreshStore } from "../test/helpers/stores.ts";
import type { LoadOptions } from "./load.ts";
import { cpuBetween, listProcesses, PARTS, sampleCpu, type CountedProcesses, type PartCpu } from "./part-cpu.ts";
import { loadServer, profileFlags, startParley, startProcess, waitUntilIdle, type BenchServer, type MeasuredLoad } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";

/** Redis for the cluster (REDIS_URL as the processes get it); BENCH_REDIS_URL overrides it. */
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const NGINX_START_TIMEOUT_MS = 10_000;
const REDIS_TIMEOUT_MS = 3000;
/**
 * Connections each nginx worker may hold: two per proxied request, one request per long poll.
 * 10,000 polls take over 20,000 descriptors, past the usual limit of one process: nginx runs a
 * worker per core (Debian's `worker_processes auto`), which share the polls.
 */
const NGINX_CONNECTIONS = 20_000;

/** How long a layout may take to go quiet after a run. */
export const IDLE_LIMIT_MS = 60_000;
/** The shortest unrecorded warm-up run of a layout, in seconds (otherwise BENCH_WARMUP_SECONDS). */
const MIN_WARM_SECONDS = 0.5;

/** What a layout's measured run gives: the load, and each part's CPU milliseconds per answered request (null when none was answered). */
export type LayoutLoad = { load: MeasuredLoad; cpuMsPerRequest: PartCpu | null };

/**
 * A layout's unrecorded warm-up run, then the measured run with the CPU of the `counted`
 * processes read around it. Each process gets a share of the load, so the warm-up lasts as many
 * times longer as there are processes: each serves as many warm-up requests as a single process
 * does (a process that has served a third of them still runs part of its path unoptimised).
 * `warmed`: the layout has just served this path, so only the measured run's own warm-up runs.
 */
export async function measureLayoutLoad(
  layout: BenchServer,
  counted: CountedProcesses,
  common: Omit<LoadOptions, "url" | "seconds" | "warmupSeconds">,
  settings: BenchSettings,
  warmed = false,
): Promise<LayoutLoad> {
  if (!warmed) await loadServer(layout, { ...common, seconds: Math.max(MIN_WARM_SECONDS, settings.warmupSeconds) * counted.parley.length, warmupSeconds: 0 });
  await waitUntilIdle(layout, IDLE_LIMIT_MS);
  const before = sampleCpu(counted);
  const load = await loadServer(layout, { ...common, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds });
  const cpu = cpuBetween(before, sampleCpu(counted));
  const perRequest = (seconds: number) => (seconds * 1000) / load.answered;
  return { load, cpuMsPerRequest: load.answered === 0 ? null : (Object.fromEntries(PARTS.map((part) => [part, perRequest(cpu[part])])) as PartCpu) };
}

/** The database's name, as PostgreSQL's backends show it. */
export function databaseName(store: FreshStore): string {
  return new URL(store.databaseUrl ?? "").pathname.slice(1);
}

/** What a layout's CPU is read from: its Parley processes, nginx, and the store's PostgreSQL backends. */
export function countedProcesses(nginx: Nginx, processes: readonly BenchServer[], store: FreshStore): CountedProcesses {
  return { parley: processes.map((p) => p.pid), nginxMaster: nginx.masterPid, database: databaseName(store) };
}

/** nginx in front of some Parley ports. */
export type Nginx = { url: string; masterPid: number; output(): string; stop(): Promise<void> };

/** Starts nginx with deploy/nginx.conf proxying to `ports`, on a free port of its own; resolves once it listens. */
export async function startNginx(ports: readonly number[]): Promise<Nginx> {
  const [listenPort] = await consecutiveFreePorts(1);
  const { dir, args } = prepareNginx(listenPort, ports, { workerConnections: NGINX_CONNECTIONS, workers: "auto" });
  const proc = startProcess(findNginx(), args);
  const stop = async () => {
    await proc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(listenPort, NGINX_START_TIMEOUT_MS, proc.exited);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${listenPort}`, masterPid: proc.pid, output: proc.output, stop };
}

/** The Redis client of the harness: fails at once, with the URL, when Redis does not answer. */
async function redisClient(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: REDIS_TIMEOUT_MS, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new Error(`Redis is unreachable at ${REDIS_URL} (BENCH_REDIS_URL): ${String(err)}`);
  }
}

/** Fails unless Redis answers. */
export async function checkRedis(): Promise<void> {
  (await redisClient()).disconnect();
}

/**
 * Deletes the keys the processes on `store` made in Redis: the event stream and the process
 * registry (under the bus channel), and rate-limit counters should any be on (src/rate-limit.ts
 * names them by the same digest of the database).
 */
export async function dropRedisKeys(store: FreshStore): Promise<void> {
  const channel = busChannel({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  const patterns = [`${channel}*`, `${channel.replace(/^parley:events:/, "parley:ratelimit:")}:*`];
  const redis = await redisClient();
  try {
    for (const pattern of patterns) {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== "0");
    }
  } finally {
    redis.disconnect();
  }
}

/** Starts Parley processes on `ports` at once, sharing the store and Redis, each telling clients `site` (nginx). */
export async function startProcesses(store: FreshStore, ports: readonly number[], site: string): Promise<BenchServer[]> {
  const env = { REDIS_URL, EXTERNAL_URL: site, TRUSTED_PROXIES: "127.0.0.1" };
  // BENCH_PROFILE_DIR: a CPU profile of each process, named by its port.
  const profileDir = process.env.BENCH_PROFILE_DIR || null;
  const started = await Promise.allSettled(
    ports.map((port) => startParley({ dataDir: store.dataDir, databaseUrl: store.databaseUrl, port, env, nodeFlags: profileFlags({ profileDir }, `cluster-${port}`) })),
  );
  const servers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  return servers;
}

/** The layout as one server: nginx's URL, and the CPU of every Parley process and of nginx's master and workers. */
export function behindNginx(nginx: Nginx, processes: readonly BenchServer[]): BenchServer {
  return {
    url: nginx.url,
    pid: processes[0].pid,
    pids: [...processes.map((p) => p.pid), nginx.masterPid, ...listProcesses().filter((p) => p.ppid === nginx.masterPid).map((p) => p.pid)],
    output: () => [nginx.output(), ...processes.map((p) => p.output())].join("\n"),
    stop: async () => {
      await nginx.stop();
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
}

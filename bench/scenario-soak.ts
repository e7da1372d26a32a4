/**
 * Scenario `soak` (issue 37; run when named: `npm run bench -- soak`): one Parley process on
 * SQLite, as `npm start` runs it, holding a queue with a long poll for each of BENCH_SOAK_USERS
 * users, under a steady mix of BENCH_SOAK_RATE requests a second (bench/soak-mix.ts) for
 * BENCH_SOAK_MINUTES. The server's RSS (VmRSS) is sampled every BENCH_SOAK_SAMPLE_SECONDS; the
 * run fails when the RSS at the end exceeds the RSS at the sixth of the run (5 minutes of 30) by
 * more than the bound that the documented caches allow (soakBound; docs/benchmarks.md), when
 * any answer is not a success, or when a delivery is missing, doubled or out of sequence.
 */
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../src/config.ts";
import { freshStore } from "../test/helpers/stores.ts";
import { apiCall, createChannel, createOrg, type BenchUser } from "./org.ts";
import { num } from "./settings.ts";
import { cpuSeconds, rssBytes, startParley } from "./servers.ts";
import { SoakClients, type SoakChannel, type SoakCounts } from "./soak-mix.ts";

/** The soak's knobs (BENCH_SOAK_*). */
export type SoakSettings = { minutes: number; rate: number; users: number; sampleSeconds: number };

/** One RSS sample of the server process. */
export type SoakSample = { minute: number; rssBytes: number; anonBytes: number; fileBytes: number; dbBytes: number; requests: number; cpuSeconds: number };

/** One term of the RSS bound, with how it was derived. */
export type BoundTerm = { name: string; bytes: number; how: string };

export type SoakResult = {
  settings: SoakSettings;
  samples: SoakSample[];
  base: SoakSample;
  end: SoakSample;
  bound: BoundTerm[];
  counts: SoakCounts;
  missing: number;
  unexpected: number;
  /** Why the run failed; empty when it passed. */
  failures: string[];
};

const MIB = 1024 * 1024;
// SQLite's default cache_size (-2000: 2,000 KiB), which the checkpointer's connection keeps.
const SQLITE_DEFAULT_CACHE_BYTES = 2000 * 1024;
/** Room for the JavaScript heap to move between two samples (BENCH_SOAK_HEAP_MB; see docs/benchmarks.md). */
const DEFAULT_HEAP_ALLOWANCE_MB = 32;

export function soakSettings(): SoakSettings {
  return {
    minutes: num("BENCH_SOAK_MINUTES", 30),
    rate: num("BENCH_SOAK_RATE", 40),
    users: Math.round(num("BENCH_SOAK_USERS", 60)),
    sampleSeconds: num("BENCH_SOAK_SAMPLE_SECONDS", 30),
  };
}

function statusField(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Native bytes of a compiled statement per byte of its SQL: 20 to 30 (as measured for the store's
 * statement cache, src/config.ts DEFAULT_SQLITE_STATEMENT_CACHE_KB); the bound takes the upper figure.
 */
const COMPILED_BYTES_PER_SQL_BYTE = 30;

/**
 * How far RSS may grow between the base sample and the end, from the caches that can still fill
 * after the base: each SQLite connection's page cache (at most its cache_size, and never more
 * than the database it caches), each connection's compiled statements (at most
 * SQLITE_STATEMENT_CACHE_KB of SQL, compiled), and room for the JavaScript heap (read cache,
 * queues, V8's own growth), which the server does not report.
 */
export function soakBound(dbBytesAtEnd: number, env: NodeJS.ProcessEnv): BoundTerm[] {
  const config = loadConfig(env);
  const cacheMb = config.sqliteCacheMb;
  const statementKb = config.sqliteStatementCacheKb;
  const pageCache = Math.min(cacheMb * MIB, dbBytesAtEnd);
  const heapMb = num("BENCH_SOAK_HEAP_MB", DEFAULT_HEAP_ALLOWANCE_MB);
  return [
    { name: "page cache, writer and reader", bytes: 2 * pageCache, how: `2 connections x min(SQLITE_CACHE_MB ${cacheMb} MiB, database + WAL at the end ${(dbBytesAtEnd / MIB).toFixed(1)} MiB)` },
    { name: "page cache, checkpointer", bytes: Math.min(SQLITE_DEFAULT_CACHE_BYTES, dbBytesAtEnd), how: "1 connection x min(SQLite's default 2,000 KiB, the database)" },
    { name: "compiled statements", bytes: 2 * statementKb * 1024 * COMPILED_BYTES_PER_SQL_BYTE, how: `2 connections x SQLITE_STATEMENT_CACHE_KB ${statementKb} KiB of SQL x ${COMPILED_BYTES_PER_SQL_BYTE} compiled bytes per byte` },
    { name: "JavaScript heap", bytes: heapMb * MIB, how: `BENCH_SOAK_HEAP_MB ${heapMb} MiB: the read cache, the queues' unacknowledged events, V8's own room` },
  ];
}

async function setUp(users: number): Promise<{ fresh: Awaited<ReturnType<typeof freshStore>>; org: BenchUser[]; realm: number }> {
  const fresh = await freshStore("sqlite");
  const org = await createOrg(fresh, users);
  return { fresh, org: org.users, realm: org.realmId };
}

/** Four channels: one everybody is in, three each holding a third of the users. */
async function makeChannels(url: string, users: BenchUser[]): Promise<SoakChannel[]> {
  const owner = users[0];
  const plan = [
    { name: "soak everyone", members: users },
    ...[0, 1, 2].map((k) => ({ name: `soak team ${k}`, members: users.filter((_, i) => i % 3 === k) })),
  ];
  const channels: SoakChannel[] = [];
  for (const p of plan) {
    const id = await createChannel(url, owner, p.name, p.members);
    const listed = (await apiCall(url, owner, "GET", `/streams/${id}/members`, {})).subscribers as number[];
    const members = users.filter((u) => listed.includes(u.id));
    channels.push({ id, name: p.name, members });
  }
  return channels;
}

/** Runs the soak; the store is dropped afterwards. */
export async function runSoakScenario(settings: SoakSettings, log: (line: string) => void): Promise<SoakResult> {
  const { fresh, org } = await setUp(settings.users);
  const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: null });
  const dbFile = path.join(fresh.dataDir, "parley.db");
  const dbBytes = () => fileBytes(dbFile) + fileBytes(`${dbFile}-wal`);
  let clients: SoakClients | null = null;
  try {
    const channels = await makeChannels(server.url, org);
    clients = new SoakClients(server.url, org, channels);
    await clients.start();
    const c = clients;
    const started = performance.now();
    const samples: SoakSample[] = [];
    const requests = () => [...c.counts.byKind.values()].reduce((n, k) => n + k.ok + k.failed, 0);
    const sample = (): SoakSample => {
      const s = {
        minute: (performance.now() - started) / 60_000,
        rssBytes: rssBytes(server.pid) ?? 0,
        anonBytes: statusField(server.pid, "RssAnon"),
        fileBytes: statusField(server.pid, "RssFile") + statusField(server.pid, "RssShmem"),
        dbBytes: dbBytes(),
        requests: requests(),
        cpuSeconds: cpuSeconds(server.pid) ?? 0,
      };
      samples.push(s);
      log(`  soak ${s.minute.toFixed(1)} min: RSS ${(s.rssBytes / MIB).toFixed(1)} MiB (anon ${(s.anonBytes / MIB).toFixed(1)}), database ${(s.dbBytes / MIB).toFixed(1)} MiB, ${s.requests} requests, ${c.counts.messagesSent} messages, ${c.counts.serverErrors} 5xx, ${c.counts.otherFailures} other failures, ${c.counts.queueFailures} queue faults, ${c.counts.pollRetries} polls retried, ${c.outstanding()} deliveries outstanding${c.counts.firstFailure ? ` (first failure: ${c.counts.firstFailure.slice(0, 200)})` : ""}${c.counts.firstQueueFailure ? ` (first queue fault: ${c.counts.firstQueueFailure.slice(0, 200)})` : ""}${c.counts.firstPollRetry ? ` (first poll retried: ${c.counts.firstPollRetry.slice(0, 200)})` : ""}`);
      return s;
    };
    const baseMinute = settings.minutes / 6;
    // Paced by the clock: a timer that fires late (a busy harness) starts the requests it owes.
    let ticks = 0;
    const tick = setInterval(() => {
      const due = Math.floor(((performance.now() - started) / 1000) * settings.rate);
      for (; ticks < due; ticks++) c.tick();
    }, 1000 / settings.rate);
    // Regular samples, and the base one exactly at the sixth of the run.
    const baseAt = baseMinute * 60;
    const times = new Set<number>([baseAt]);
    for (let t = settings.sampleSeconds; t < settings.minutes * 60; t += settings.sampleSeconds) times.add(t);
    let base: SoakSample | null = null;
    try {
      sample();
      for (const t of [...times].sort((a, b) => a - b)) {
        await until(started, t);
        const s = sample();
        if (t === baseAt) base = s;
      }
      await until(started, settings.minutes * 60);
    } finally {
      clearInterval(tick);
    }
    if (base === null) throw new Error("no base sample");
    const end = sample();
    await c.drain(120_000);
    const { missing, unexpected } = c.deliveryFaults();
    c.stop();
    const bound = soakBound(end.dbBytes, process.env);
    const allowed = bound.reduce((n, t) => n + t.bytes, 0);
    const failures: string[] = [];
    const growth = end.rssBytes - base.rssBytes;
    if (growth > allowed) failures.push(`RSS grew ${(growth / MIB).toFixed(1)} MiB from minute ${base.minute.toFixed(1)} to the end (${(base.rssBytes / MIB).toFixed(1)} -> ${(end.rssBytes / MIB).toFixed(1)} MiB), more than the bound of ${(allowed / MIB).toFixed(1)} MiB`);
    if (c.counts.serverErrors > 0) failures.push(`${c.counts.serverErrors} answers were 5xx (first failure: ${c.counts.firstFailure})`);
    if (c.counts.otherFailures > 0) failures.push(`${c.counts.otherFailures} requests failed (first: ${c.counts.firstFailure})`);
    if (c.counts.queueFailures > 0) failures.push(`${c.counts.queueFailures} queue faults (first: ${c.counts.firstQueueFailure})`);
    if (missing > 0) failures.push(`${missing} deliveries never arrived`);
    if (unexpected > 0) failures.push(`${unexpected} message events arrived that no send stored, or twice`);
    if (c.counts.skipped > 0) failures.push(`${c.counts.skipped} requests were not started on time: the server fell behind the rate`);
    return { settings, samples, base, end, bound, counts: c.counts, missing, unexpected, failures };
  } finally {
    clients?.stop();
    await server.stop();
    await fresh.drop();
  }
}

/** Resolves at `seconds` after `started` (performance.now() milliseconds). */
function until(started: number, seconds: number): Promise<void> {
  const wait = started + seconds * 1000 - performance.now();
  return new Promise((r) => setTimeout(r, Math.max(0, wait)));
}

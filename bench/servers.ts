/**
 * The processes under measurement: the bare `http` baseline and a real Parley server
 * (`node bin/parley.js serve`), each in its own process, on 127.0.0.1, stopped by the harness
 * and unable to outlive it (the baseline exits when its stdin closes; Parley gets SIGTERM, and
 * SIGKILL if it has not exited within STOP_TIMEOUT_MS).
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import type { LoadOptions, LoadResult } from "./load.ts";
import { isQuick } from "./settings.ts";
import { takeTurn } from "./turns.ts";
import { freePort } from "../test/helpers/ports.ts";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * A running server under measurement; `profiled` when it runs under V8's CPU profiler (which
 * costs CPU of its own); `pids`: every process serving `url` when there are several (several
 * Parley processes behind nginx), otherwise `pid` alone.
 */
export type BenchServer = { url: string; pid: number; pids?: number[]; profiled?: boolean; output(): string; stop(): Promise<void> };

// Linux reports process CPU time in clock ticks of 1/100 s (getconf CLK_TCK).
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system, all threads) a process has used so far, from /proc; null where
 * /proc is missing. Unlike throughput, CPU per request hardly moves with other load on the machine.
 */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU seconds of every process serving a server (see BenchServer's `pids`); null if one is gone. */
export function serverCpuSeconds(server: Pick<BenchServer, "pid" | "pids">): number | null {
  let sum = 0;
  for (const pid of server.pids ?? [server.pid]) {
    const s = cpuSeconds(pid);
    if (s === null) return null;
    sum += s;
  }
  return sum;
}

// Every server this process started, with the signal that ends it at once; sent if the harness
// exits early (error, Ctrl-C). nginx gets SIGTERM: its master then stops its workers, which a
// SIGKILL would leave running.
const running = new Map<ChildProcess, NodeJS.Signals>();
process.on("exit", () => {
  for (const [child, signal] of running) child.kill(signal);
});

function track(child: ChildProcess, exitSignal: NodeJS.Signals = "SIGKILL"): ChildProcess {
  running.set(child, exitSignal);
  child.once("exit", () => running.delete(child));
  return child;
}

/** A process started by the harness (not a Node server), with its output kept and a bounded stop. */
export type HarnessProcess = { pid: number; exited(): string | null; output(): string; stop(): Promise<void> };

/** Starts `command` (e.g. nginx), stopped by `stopSignal` at the end and on an early exit of the harness. */
export function startProcess(command: string, args: string[], stopSignal: NodeJS.Signals = "SIGTERM"): HarnessProcess {
  const child = track(spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }), stopSignal);
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  return {
    pid: child.pid ?? 0,
    exited: () => (child.exitCode !== null || child.signalCode !== null ? `${command} exited (${child.exitCode ?? child.signalCode}):\n${out}` : null),
    output: () => out,
    stop: () => stopChild(child, stopSignal),
  };
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * Resident memory of a process (VmRSS in /proc/<pid>/status, all threads), in bytes; null where
 * /proc is missing or the process is gone.
 */
export function rssBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

// A process counts as idle once it used at most IDLE_CPU_MS of CPU over IDLE_WINDOW_MS; V8's
// profiler thread alone takes 50-70 ms of 500 ms (measured here), so a profiled server gets
// PROFILED_IDLE_CPU_MS. The quick look watches half as long, with half the allowance: a quick
// run waits for idle servers some thirty times, which took 25 of its 147 s with whole windows.
const IDLE_WINDOW_MS = isQuick() ? 250 : 500;
const IDLE_CPU_MS = IDLE_WINDOW_MS / 25;
const PROFILED_IDLE_CPU_MS = (IDLE_WINDOW_MS * 6) / 25;

/**
 * Waits until a server has worked through what it was sent: its CPU time grows by at most
 * IDLE_CPU_MS (per process serving it) in IDLE_WINDOW_MS. Gives up (returns false) after `limitMs`.
 */
export async function waitUntilIdle(server: Pick<BenchServer, "pid" | "pids" | "profiled">, limitMs: number): Promise<boolean> {
  // Each process serving it may use the idle allowance.
  const quietMs = (server.profiled ? PROFILED_IDLE_CPU_MS : IDLE_CPU_MS) * (server.pids?.length ?? 1);
  const deadline = performance.now() + limitMs;
  let last = serverCpuSeconds(server);
  if (last === null) return false;
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
    const now = serverCpuSeconds(server);
    if (now === null) return false;
    if ((now - last) * 1000 <= quietMs) return true;
    last = now;
  }
  return false;
}

/** The bare servers: the request/answer ceiling, and the long-poll one (bench/baseline-longpoll.ts). */
export const BASELINE_SCRIPTS = { http: "bench/baseline-server.ts", longPoll: "bench/baseline-longpoll.ts" } as const;

const COMPILED_DIR = path.join(ROOT, "node_modules/.cache/parley-bench");
/** This run's compiled copy of each script (read and hashed once). */
const compiledScripts = new Map<string, string>();

/**
 * A baseline script as plain JavaScript (its types stripped by esbuild, into a file named by a
 * hash of its text): the ceiling runs as bare Node, without tsx's loader and the thread that
 * loader keeps, and starts in a tenth of the time (a run starts a dozen of them).
 */
function compiledScript(script: string): string {
  const known = compiledScripts.get(script);
  if (known) return known;
  const source = fs.readFileSync(path.join(ROOT, script), "utf8");
  const hash = crypto.createHash("sha256").update(source).digest("hex").slice(0, 16);
  const file = path.join(COMPILED_DIR, `${path.basename(script, ".ts")}-${hash}.mjs`);
  if (!fs.existsSync(file)) {
    const { code } = transformSync(source, { loader: "ts", format: "esm", platform: "node", target: "node20" });
    fs.mkdirSync(COMPILED_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
  }
  compiledScripts.set(script, file);
  return file;
}

/** Starts a bare baseline server (by default the request/answer one) and resolves once it listens. */
export function startBaseline(script: string = BASELINE_SCRIPTS.http, nodeFlags: readonly string[] = []): Promise<BenchServer> {
  const child = track(spawn(process.execPath, [...nodeFlags, compiledScript(script)], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("baseline server did not start")), START_TIMEOUT_MS);
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid ?? 0,
        profiled: runsProfiled(nodeFlags),
        output: () => "",
        stop: () => {
          const exited = stopChild(child, "SIGTERM");
          child.stdin?.end();
          return exited;
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
}

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Parley exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${url}/api/v1/server_settings`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Parley did not answer within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/** Whether a process started with these arguments runs under V8's CPU profiler. */
function runsProfiled(args: readonly string[]): boolean {
  return args.some((arg) => arg.startsWith("--cpu-prof"));
}

/**
 * V8 flags that write CPU profiles of a server process to `<BENCH_PROFILE_DIR>/<name>/`, one
 * file per thread (the main thread's profile is the largest).
 */
export function profileFlags(settings: { profileDir: string | null }, name: string): string[] {
  return settings.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.join(settings.profileDir, name)}`] : [];
}

/**
 * Where Parley keeps its data, optional V8 flags (e.g. --cpu-prof) for the server process, its
 * port (a free one by default) and environment variables on top of the harness's.
 * `setUpThrough`: the scenario sets its store up through this server before measuring, so the
 * start does not wait for the run's turn (turns.ts): the scenario calls takeTurn() itself once
 * set up, and its set-up shares the machine with the other runs' rather than following them.
 */
export type ParleyOptions = { dataDir: string; databaseUrl: string | null; nodeFlags?: string[]; port?: number; env?: Record<string, string>; setUpThrough?: boolean };

/** How many Parley servers this harness started, and the seconds each waited to answer, summed (some start at once: see turns.ts). */
export const parleyStarts = { count: 0, seconds: 0 };

/** Starts `node bin/parley.js serve` with rate limits off and quiet logs; resolves once it answers. */
export async function startParley(opts: ParleyOptions): Promise<BenchServer> {
  const started = performance.now();
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: opts.dataDir,
    EXTERNAL_URL: url,
    LOG_LEVEL: "warn",
    RATE_LIMITS: "off",
    ...opts.env,
  };
  // Only the scenario's own: no inherited database, Redis or process identity.
  for (const name of ["DATABASE_URL", "PARLEY_TEST_CONTROL", "REDIS_URL", "PROCESS_ID", "INTERNAL_URL"]) {
    if (!opts.env || !(name in opts.env)) delete env[name];
  }
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const args = [...(opts.nodeFlags ?? []), path.join(ROOT, "bin/parley.js"), "serve"];
  const child = track(spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }));
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  try {
    await waitUntilAnswering(url, child, () => out);
  } catch (err) {
    await stopChild(child, "SIGKILL");
    throw err;
  }
  parleyStarts.count += 1;
  parleyStarts.seconds += (performance.now() - started) / 1000;
  const server = { url, pid: child.pid ?? 0, profiled: runsProfiled(args), output: () => out, stop: () => stopChild(child, "SIGTERM") };
  // Run by inTurns(): the other stores' runs may still be setting up; measure once they are not.
  if (!opts.setUpThrough) await takeTurn();
  return server;
}

/** A load run's figures plus the server's CPU milliseconds per answered request. */
export type MeasuredLoad = LoadResult & { serverCpuMsPerRequest: number | null };

/** The load generator process shared by this harness's load runs (bench/load-worker.ts). */
type LoadWorker = { child: ChildProcess; buffer: string; waiter: ((line: string | null) => void) | null };
let loadWorker: LoadWorker | null = null;

/** Lets the harness exit while the shared load generator idles (it exits when its stdin closes). */
function holdOpen(worker: LoadWorker, hold: boolean): void {
  const handles = [worker.child, worker.child.stdin, worker.child.stdout] as { ref(): void; unref(): void }[];
  for (const h of handles) {
    if (hold) h.ref();
    else h.unref();
  }
}

function startLoadWorker(): LoadWorker {
  const child = track(spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench/load-worker.ts")], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] }));
  const worker: LoadWorker = { child, buffer: "", waiter: null };
  const answer = (line: string | null) => {
    const waiter = worker.waiter;
    worker.waiter = null;
    waiter?.(line);
  };
  child.stdout?.on("data", (d: Buffer) => {
    worker.buffer += d.toString();
    for (let end = worker.buffer.indexOf("\n"); end >= 0; end = worker.buffer.indexOf("\n")) {
      const line = worker.buffer.slice(0, end);
      worker.buffer = worker.buffer.slice(end + 1);
      answer(line);
    }
  });
  child.once("exit", () => {
    if (loadWorker === worker) loadWorker = null;
    answer(null);
  });
  holdOpen(worker, false);
  return worker;
}

/**
 * Runs one load in the shared load generator process (started on first use, again after a
 * failure), never in this one; the process is killed if a run overruns its time by 60 s.
 */
function runLoadShared(opts: LoadOptions): Promise<LoadResult> {
  loadWorker ??= startLoadWorker();
  const worker = loadWorker;
  if (worker.waiter) return Promise.reject(new Error("a load run is already going on"));
  holdOpen(worker, true);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => worker.child.kill("SIGKILL"), (opts.seconds + opts.warmupSeconds + 60) * 1000);
    worker.waiter = (line) => {
      clearTimeout(timer);
      holdOpen(worker, false);
      if (line === null) return reject(new Error("the load generator exited during a run"));
      const parsed = JSON.parse(line) as { result?: LoadResult; error?: string };
      if (parsed.result) resolve(parsed.result);
      else reject(new Error(`load generator: ${parsed.error ?? line.slice(0, 300)}`));
    };
    worker.child.stdin?.write(`${JSON.stringify(opts)}\n`);
  });
}

/** Runs the load generator (in its own process) against a server, accounting the server's CPU. */
export async function loadServer(server: BenchServer, opts: Omit<LoadOptions, "url">): Promise<MeasuredLoad> {
  await takeTurn();
  const before = serverCpuSeconds(server);
  const result = await runLoadShared({ ...opts, url: server.url });
  const after = serverCpuSeconds(server);
  const cpu = before === null || after === null || result.answered === 0 ? null : ((after - before) * 1000) / result.answered;
  return { ...result, serverCpuMsPerRequest: cpu };
}

/**
 * The processes under measurement: the bare `http` baseline and a real Parley server
 * (`node bin/parley.js serve`), each in its own process, on 127.0.0.1, stopped by the harness
 * and unable to outlive it (the baseline exits when its stdin closes; Parley gets SIGTERM, and
 * SIGKILL if it has not exited within STOP_TIMEOUT_MS).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runLoadInChild, type LoadOptions, type LoadResult } from "./load.ts";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/** A running server process under measurement. */
export type BenchServer = { url: string; pid: number; output(): string; stop(): Promise<void> };

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

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// Every server this process started; killed if the harness exits early (error, Ctrl-C).
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
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

/** Starts the bare baseline server and resolves once it listens. */
export function startBaseline(): Promise<BenchServer> {
  const child = track(spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench/baseline-server.ts")], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] }));
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
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Parley did not answer within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/**
 * V8 flags that write CPU profiles of a server process to `<BENCH_PROFILE_DIR>/<name>/`, one
 * file per thread (tsx's loader runs in a worker; the main thread's profile is the largest).
 */
export function profileFlags(settings: { profileDir: string | null }, name: string): string[] {
  return settings.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.join(settings.profileDir, name)}`] : [];
}

/** Where Parley keeps its data, and optional V8 flags (e.g. --cpu-prof) for the server process. */
export type ParleyOptions = { dataDir: string; databaseUrl: string | null; nodeFlags?: string[]; env?: Record<string, string> };

/** Starts `node bin/parley.js serve` with rate limits off and quiet logs; resolves once it answers. */
export async function startParley(opts: ParleyOptions): Promise<BenchServer> {
  const port = await freePort();
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
  delete env.DATABASE_URL;
  delete env.PARLEY_TEST_CONTROL;
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
  return { url, pid: child.pid ?? 0, output: () => out, stop: () => stopChild(child, "SIGTERM") };
}

/** A load run's figures plus the server's CPU milliseconds per answered request. */
export type MeasuredLoad = LoadResult & { serverCpuMsPerRequest: number | null };

/** Runs the load generator (in its own process) against a server, accounting the server's CPU. */
export async function loadServer(server: BenchServer, opts: Omit<LoadOptions, "url">): Promise<MeasuredLoad> {
  const before = cpuSeconds(server.pid);
  const result = await runLoadInChild({ ...opts, url: server.url });
  const after = cpuSeconds(server.pid);
  const cpu = before === null || after === null || result.answered === 0 ? null : ((after - before) * 1000) / result.answered;
  return { ...result, serverCpuMsPerRequest: cpu };
}

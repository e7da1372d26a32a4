/** Starts a real server process on a fresh store for a suite, with the fixture organization. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createFixtures, type Fixtures } from "./fixtures.ts";
import { freePort } from "./ports.ts";
import { freshStore, type FreshStore, type StoreKind } from "./stores.ts";
import { ApiClient } from "./client.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const START_TIMEOUT_MS = 30_000;

export type TestServer = {
  kind: StoreKind;
  url: string;
  fixtures: Fixtures;
  api: ApiClient;
  store: FreshStore;
  /** The server's output so far (for failure messages). */
  output(): string;
  /** Moves the server's clock forward, firing due timers (queue GC, heartbeats). */
  advanceClock(seconds: number): Promise<void>;
  /** Stops the server process and keeps its store (a restart test starts another on it). */
  stopProcess(): Promise<void>;
  /** Kills the server process with SIGKILL, as a crash would, and keeps its store. */
  killProcess(): Promise<void>;
  /** Stops the server process and drops its store. */
  stop(): Promise<void>;
};

function waitForListening(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output()}`)), START_TIMEOUT_MS);
    const onData = () => {
      if (output().includes('"msg":"Parley is listening"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output()}`));
    });
  });
}

/** Whether a suite's env sets rate limits (RATE_LIMITS, RATE_LIMIT_*, LOGIN_RATE_*): then they are on. */
function choosesRateLimits(env: Record<string, string>): boolean {
  return Object.keys(env).some((name) => name === "RATE_LIMITS" || name.startsWith("RATE_LIMIT_") || name.startsWith("LOGIN_RATE_"));
}

/**
 * Starts a server on a fresh store of `kind`; `env` adds or overrides environment variables.
 * Rate limits are off unless `env` sets one of their variables.
 */
export async function startServer(kind: StoreKind, env: Record<string, string> = {}): Promise<TestServer> {
  const store = await freshStore(kind);
  const fixtures = await createFixtures(store);
  return startServerOnStore(store, fixtures, env);
}

/**
 * Starts a server on an existing store (e.g. one an admin CLI test prepared); stop() drops it.
 * `env.PORT` chooses the port (a restart on the same port, as event queues need); else a free one.
 */
export async function startServerOnStore(store: FreshStore, fixtures: Fixtures, env: Record<string, string> = {}): Promise<TestServer> {
  // A port found free can be taken by another process before the server binds it (an outgoing
  // connection's ephemeral port, say): then the server is started again on another.
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    try {
      return await startServerOnPort(store, fixtures, env, port);
    } catch (err) {
      if (env.PORT || attempt >= PORT_ATTEMPTS || !String(err).includes("EADDRINUSE")) throw err;
    }
  }
}

/** How many free ports startServerOnStore tries before it gives up. */
const PORT_ATTEMPTS = 3;

async function startServerOnPort(store: FreshStore, fixtures: Fixtures, env: Record<string, string>, port: number): Promise<TestServer> {
  const kind = store.kind;
  const url = `http://127.0.0.1:${port}`;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: store.dataDir,
    EXTERNAL_URL: url,
    LOG_LEVEL: "info",
    PARLEY_TEST_CONTROL: "1",
    // Suites send many requests from one address: no rate limits unless the suite sets some.
    ...(choosesRateLimits(env) ? {} : { RATE_LIMITS: "off" }),
    // Presence reports written at once, so a test reads what it just reported (presence.test.ts sets a delay).
    PRESENCE_WRITE_DELAY_MS: "0",
    // Every register settles unread state up to the newest message on PostgreSQL too, so suites
    // exercise the unread watermark on both stores (store/messages/unread-watermarks.ts).
    UNREAD_SETTLE_SECONDS: "0",
    ...env,
  };
  delete childEnv.DATABASE_URL;
  if (store.databaseUrl) childEnv.DATABASE_URL = store.databaseUrl;
  const child = spawn(process.execPath, [path.join(ROOT, "bin/parley.js"), "serve"], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const output = () => out;
  try {
    await waitForListening(child, output);
  } catch (err) {
    // A server that did not come up in time must not outlive the test (the run would never exit).
    child.kill("SIGKILL");
    throw err;
  }
  const api = new ApiClient(url);
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(name);
      await exited;
    }
  };
  const stopProcess = () => signal("SIGTERM");
  return {
    kind,
    url,
    fixtures,
    api,
    store,
    output,
    async advanceClock(seconds) {
      await api.post(null, "/__test/advance_clock", { seconds });
    },
    stopProcess,
    killProcess: () => signal("SIGKILL"),
    async stop() {
      await stopProcess();
      await store.drop();
    },
  };
}

export type CliResult = { code: number | null; stdout: string; stderr: string };

/**
 * Runs the admin CLI (`node bin/parley.js ...args`) on a store, as an operator would;
 * `stdin` is written to its input, `env` adds variables (EXTERNAL_URL, ...).
 */
export function runCli(store: FreshStore, args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: store.dataDir, ...opts.env };
  delete env.DATABASE_URL;
  if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
  const child = spawn(process.execPath, [path.join(ROOT, "bin/parley.js"), ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(opts.stdin ?? "");
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/**
 * `parley serve --processes N`: a local cluster. The launcher starts N `serve` processes on the
 * ports PORT, PORT+1, ..., PORT+N-1 (the same environment otherwise), restarts one that exits
 * unexpectedly, and on SIGTERM or SIGINT stops them all, each saving its event queues. The
 * processes share PostgreSQL and Redis; a front proxy (deploy/nginx.conf) sends each event
 * queue's requests to the process that holds it (the queue id's prefix is its port).
 */
import { fork, type ChildProcess } from "node:child_process";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { makeLogger } from "../log.ts";
import { CliError, parseOptions } from "./args.ts";

/** At most this many processes per launcher: a bound on a typo, far above one machine's cores. */
const MAX_PROCESSES = 64;
/** A process is restarted at most this many times within RESTART_WINDOW_MS; then every process is stopped. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/** The wait before a restart; it doubles with each restart of the same port within the window (0.5 s to 8 s). */
const RESTART_BASE_DELAY_MS = 500;
/** How long a stopping process may take to answer its polls and save its queues before it is killed. */
const STOP_TIMEOUT_MS = 30_000;
/** What a process started by the launcher sends it once it listens. */
const LISTENING_MESSAGE = "parley:listening";

const SERVE_USAGE = "serve takes no options other than --processes N (configure it with environment variables)";

/** Reads `serve`'s options: the number of processes (1, the default: this process serves). */
export function parseServeOptions(argv: string[]): number {
  let raw: string | undefined;
  try {
    raw = parseOptions(argv, { processes: { help: "how many server processes to start" } }).processes;
  } catch (err) {
    throw new CliError(`${err instanceof Error ? err.message : String(err)}: ${SERVE_USAGE}`, 2);
  }
  if (raw === undefined) return 1;
  const processes = Number(raw);
  if (!/^[0-9]+$/.test(raw) || processes < 1 || processes > MAX_PROCESSES) {
    throw new CliError(`--processes must be an integer from 1 to ${MAX_PROCESSES} (got '${raw}')`, 2);
  }
  return processes;
}

/**
 * Refuses a cluster the configuration cannot serve. SQLite is refused although several processes
 * could open one file: they would queue for its single writer lock (each process's group commit
 * batches only its own transactions), and nothing about it is tested; several processes are
 * for load that SQLite in one process does not carry, which is PostgreSQL's job.
 */
export function checkClusterConfig(config: Pick<Config, "databaseUrl" | "redisUrl" | "port">, processes: number, env: NodeJS.ProcessEnv): void {
  if (config.databaseUrl === null) {
    throw new CliError("--processes needs DATABASE_URL (PostgreSQL): several processes on one SQLite file would queue for its single writer", 2);
  }
  if (config.redisUrl === null) {
    throw new CliError("--processes needs REDIS_URL: without Redis, events published by one process never reach the queues of the others", 2);
  }
  // Each process is named by its port (its queue ids' prefix, its saved-queue file, nginx's map)
  // and reached at it: settings that name a single process would give all of them one name.
  for (const name of ["PROCESS_ID", "INTERNAL_URL"]) {
    if (env[name]) throw new CliError(`--processes names and reaches each process by its port: unset ${name}, which would be the same for all of them`, 2);
  }
  if (config.port === 0 || config.port + processes - 1 > 65535) {
    throw new CliError(`--processes ${processes} needs the ports ${config.port} to ${config.port + processes - 1}: set PORT to the first of ${processes} free ports`, 2);
  }
}

/**
 * In a process the launcher started: tells it that this one listens, and stops (as on SIGTERM)
 * if the launcher goes away without stopping it. Does nothing in a process started otherwise.
 */
export function reportToLauncher(url: string, stop: () => void): void {
  if (!process.send || !process.connected) return;
  process.send({ type: LISTENING_MESSAGE, url });
  process.once("disconnect", stop);
}

function isListening(message: unknown): boolean {
  return typeof message === "object" && message !== null && "type" in message && message.type === LISTENING_MESSAGE;
}

/** One port of the cluster and the process serving it. */
type Slot = {
  port: number;
  child: ChildProcess | null;
  /** Settles when `child` has exited. */
  exited: Promise<void>;
  /** When the port's process was restarted, within the last RESTART_WINDOW_MS. */
  restarts: number[];
  restartTimer: NodeJS.Timeout | null;
};

/** The launcher's processes: starting, supervising and stopping them. */
class Cluster {
  private readonly slots: Slot[];
  private running = false;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    processes: number,
    /** Ends the launcher once every process has stopped. */
    private readonly exit: (code: number) => void,
  ) {
    this.slots = Array.from({ length: processes }, (_, i) => ({ port: config.port + i, child: null, exited: Promise.resolve(), restarts: [], restartTimer: null }));
  }

  get isStopping(): boolean {
    return this.stopping !== null;
  }

  /**
   * Starts the first process and waits until it listens (it runs the migrations and, on an empty
   * store, the first-start bootstrap, which must not race), then the others.
   */
  async start(): Promise<void> {
    const [first, ...others] = this.slots;
    await this.launch(first);
    await Promise.all(others.map((slot) => this.launch(slot)));
    if (this.stopping) return;
    // One that listened and then exited before the others did is not restarted: fail the start.
    const gone = this.slots.find((slot) => slot.child === null);
    if (gone) throw new Error(`the process for port ${gone.port} exited during the start; see its log above`);
    this.running = true;
    const serving = this.slots.map((slot) => ({ port: slot.port, serverPid: slot.child?.pid }));
    this.log.info({ processes: serving, site: this.config.externalUrl }, `Parley is serving on ${serving.length} processes`);
  }

  /** Starts the process of a port; settles once it listens, or fails if it exits first. */
  private launch(slot: Slot): Promise<void> {
    const env = { ...process.env, PORT: String(slot.port), EXTERNAL_URL: this.config.externalUrl };
    // The same program as this one (bin/parley.js, or src/cli.ts under tsx's loader), with its node flags.
    const child = fork(process.argv[1], ["serve"], { env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    slot.child = child;
    this.log.info({ port: slot.port, serverPid: child.pid }, "starting a server process");
    let onExit: (code: number | null, signal: NodeJS.Signals | null) => void = () => {};
    slot.exited = new Promise((resolve) => {
      onExit = (code, signal) => {
        if (slot.child !== child) return;
        slot.child = null;
        resolve();
        this.exited(slot, child.pid, code, signal);
      };
    });
    return new Promise<void>((resolve, reject) => {
      child.on("message", (message) => {
        if (!isListening(message)) return;
        this.log.info({ port: slot.port, serverPid: child.pid }, "server process is listening");
        resolve();
      });
      child.once("exit", (code, signal) => {
        reject(new Error(`the process for port ${slot.port} exited before it listened (${signal ?? `exit code ${code}`}); see its log above`));
        onExit(code, signal);
      });
      child.once("error", (err) => {
        reject(err);
        // A process that could not be started emits no "exit".
        if (child.pid === undefined) onExit(null, null);
      });
    });
  }

  /** A process ended: while running, it is restarted after a backoff, a bounded number of times. */
  private exited(slot: Slot, pid: number | undefined, code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.running || this.stopping) return;
    const now = Date.now();
    slot.restarts = slot.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
    if (slot.restarts.length >= MAX_RESTARTS) {
      this.log.fatal({ port: slot.port, serverPid: pid, code, signal, restarts: slot.restarts.length }, `server process keeps exiting (${MAX_RESTARTS} restarts in ${RESTART_WINDOW_MS / 1000} s); stopping every process`);
      void this.stop().then(() => this.exit(1));
      return;
    }
    const delayMs = RESTART_BASE_DELAY_MS * 2 ** slot.restarts.length;
    slot.restarts.push(now);
    this.log.error({ port: slot.port, serverPid: pid, code, signal, delayMs }, "server process exited unexpectedly; restarting it");
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      // A restart that fails is reported by exited() again.
      if (!this.stopping) this.launch(slot).catch(() => {});
    }, delayMs);
  }

  /** Sends SIGTERM to every process and waits until all have exited (each saves its event queues). */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const slot of this.slots) {
        if (slot.restartTimer) clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
      }
      await Promise.all(this.slots.map((slot) => this.stopProcess(slot)));
      this.log.info({ ports: this.slots.map((slot) => slot.port) }, "every server process has stopped");
    })();
    return this.stopping;
  }

  private async stopProcess(slot: Slot): Promise<void> {
    const child = slot.child;
    if (!child) return;
    child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS)));
    if (await Promise.race([slot.exited.then(() => false), timedOut])) {
      this.log.error({ port: slot.port, serverPid: child.pid }, `server process did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
      child.kill("SIGKILL");
      await slot.exited;
    }
    clearTimeout(timer);
  }

  /** Kills every process at once (their queues are lost, as in a crash). */
  kill(): void {
    for (const slot of this.slots) slot.child?.kill("SIGKILL");
  }
}

/**
 * Runs `serve --processes N` (N > 1): starts and supervises the processes until SIGTERM or SIGINT
 * (the same signal again kills them at once). Logs pino lines as the server does.
 */
export async function runCluster(config: Config, processes: number): Promise<void> {
  checkClusterConfig(config, processes, process.env);
  const log = makeLogger(config);
  const cluster = new Cluster(config, log, processes, (code) => process.exit(code));
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      log.warn({ signal }, "killing every server process");
      cluster.kill();
      process.exit(1);
    }
    log.info({ signal }, "stopping every server process");
    void cluster.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await cluster.start();
  } catch (err) {
    // A signal during the start: its handler stops the processes and exits.
    if (cluster.isStopping) return;
    await cluster.stop();
    throw new CliError(err instanceof Error ? err.message : String(err), 1);
  }
}

/**
 * Where the push worker (actions/push/relay-worker.ts) runs: inline, on the thread that answers
 * requests, or on a thread of its own (PUSH_WORKER; config.ts says which is the default where).
 *
 * On PostgreSQL a send awaits a dozen queries, and each answer waits its turn on the event loop
 * behind whatever else runs there: a worker deciding a hundred notifications and sealing their
 * payloads took the sender's p50 from 17 to 64 ms (docs/benchmarks.md). On its own thread the
 * worker has its own event loop and its own database pool, and asks this thread only what this
 * thread alone knows:
 * - which users hold an event queue here (the "online" rule of its decisions);
 * - its events (a registration settled) go out on this thread's bus;
 * - it is woken when a commit here queued work for it (actions/push/relay-signal.ts).
 * Its jobs live in the database as ever, so nothing is lost if the thread dies: it is started
 * again, and its leases run out.
 */
import fs from "node:fs";
import os from "node:os";
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from "node:worker_threads";
import type { Logger } from "pino";
import { systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { makeLogger } from "./log.ts";
import type { ServerDeps } from "./actions/context.ts";
import type { QueueHolders } from "./actions/push/away.ts";
import { localRelayWakes, startPushRelayWorker, type PushRelayWorker } from "./actions/push/relay-worker.ts";
import type { EventBus } from "./events/bus.ts";
import type { Delivery } from "./events/types.ts";
import { openStore } from "./store/db.ts";

/** What the request thread tells the worker's thread. */
type ToWorker = { kind: "wake" } | { kind: "queue-holders"; id: number; userIds: number[] } | { kind: "stop" };
/** What the worker's thread tells the request thread. */
type FromWorker = { kind: "publish"; deliveries: Delivery[] } | { kind: "ask-queue-holders"; id: number; userIds: number[] } | { kind: "stopped" };

type ThreadData = { parleyPushWorker: true; config: Config };

/** A stopped thread that will not finish its jobs is ended after this long (its leases run out). */
const STOP_TIMEOUT_MS = 20_000;
/** A thread that died is started again after this long. */
const RESTART_DELAY_MS = 1_000;

/**
 * Starts the push worker where the configuration says; `holders` answers which users hold a
 * message queue (in this process or, with several, in any: server.ts).
 */
export function startPushWorker(deps: ServerDeps, holders: QueueHolders): PushRelayWorker {
  // Without a relay the worker only parks what is queued: not worth a thread.
  if (!deps.config.pushWorkerThread || deps.config.pushRelay === null) {
    return startPushRelayWorker({ ...deps, usersWithMessageQueues: holders, wakes: localRelayWakes });
  }
  return new PushThread(deps, holders);
}

/** The request thread's side of a worker thread: starts it, answers it, and starts it again if it dies. */
class PushThread implements PushRelayWorker {
  private worker: Worker | null = null;
  private stopping = false;
  private wakePosted = false;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: ServerDeps,
    private readonly holders: QueueHolders,
  ) {
    // Woken by every commit here that queued relay work: one message per turn of the loop at most.
    this.unsubscribe = localRelayWakes(() => this.postWake());
    this.start();
  }

  private start(): void {
    const data: ThreadData = { parleyPushWorker: true, config: this.deps.config };
    // The thread loads push-thread-entry as the process loaded this code: compiled
    // (bin/server-build.js puts the entry beside the chunk holding this file's code), or our
    // TypeScript through tsx.
    const typescript = import.meta.url.endsWith(".ts");
    const tsx = typescript ? import.meta.resolve("tsx/esm/api") : null;
    const entry = new URL(typescript ? "./push-thread-entry.ts" : "./push-thread-entry.mjs", import.meta.url).href;
    const boot = `
      const { workerData } = require("node:worker_threads");
      (workerData.tsx ? import(workerData.tsx).then((tsx) => tsx.register()) : Promise.resolve())
        .then(() => import(workerData.entry))
        .catch((err) => { console.error(err); process.exit(1); });`;
    const worker = new Worker(boot, { eval: true, workerData: { ...data, tsx, entry } });
    this.worker = worker;
    worker.on("message", (message: FromWorker) => this.onMessage(worker, message));
    worker.on("error", (err) => this.deps.log.error({ err }, "push worker thread failed"));
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = null;
      if (this.stopping) return;
      this.deps.log.error({ code }, "push worker thread exited; starting it again");
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.stopping) this.start();
      }, RESTART_DELAY_MS);
    });
  }

  private onMessage(worker: Worker, message: FromWorker): void {
    if (message.kind === "publish") this.deps.bus.publish(message.deliveries);
    else if (message.kind === "stopped") void worker.terminate();
    else if (message.kind === "ask-queue-holders") {
      void this.holders(message.userIds).then((holders) => {
        const reply: ToWorker = { kind: "queue-holders", id: message.id, userIds: [...holders] };
        worker.postMessage(reply);
      });
    }
  }

  private postWake(): void {
    if (this.wakePosted) return;
    this.wakePosted = true;
    setImmediate(() => {
      this.wakePosted = false;
      const wake: ToWorker = { kind: "wake" };
      this.worker?.postMessage(wake);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe();
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    const stop: ToWorker = { kind: "stop" };
    worker.postMessage(stop);
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}

/** The worker thread's bus: its deliveries go out on the request thread's. */
class ParentBus implements EventBus {
  constructor(private readonly port: MessagePort) {}
  publish(deliveries: Delivery[]): void {
    const message: FromWorker = { kind: "publish", deliveries };
    this.port.postMessage(message);
  }
  subscribe(): void {
    // Nothing is delivered here: the thread holds no event queues.
  }
  async close(): Promise<void> {}
}

/** The niceness of the worker's thread: under a full CPU, requests go first. */
const WORKER_NICE = 10;

/**
 * Lowers this thread's scheduling priority. Linux keeps a nice value per thread (setpriority(2)
 * on a thread id), so the request thread keeps its own; elsewhere this is skipped.
 */
function lowerThreadPriority(log: Logger): void {
  if (process.platform !== "linux") return;
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    os.setPriority(tid, WORKER_NICE);
  } catch (err) {
    log.warn({ err }, "could not lower the push worker thread's priority");
  }
}

/** The worker thread's side (push-thread-entry.ts runs it): its own store and loop, and answers from the request thread. */
export async function runWorkerThread(port: MessagePort, config: Config): Promise<void> {
  const log: Logger = makeLogger(config).child({ thread: "push" });
  lowerThreadPriority(log);
  const store = openStore(config);
  // This thread's own clock: the wall clock (a test's manual clock lives on the request thread).
  const deps: ServerDeps = { store, bus: new ParentBus(port), clock: systemClock, config, log };
  const asks = new Map<number, { resolve(ids: ReadonlySet<number>): void; reject(err: Error): void }>();
  let lastAsk = 0;
  let wakeLoop: () => void = () => {};
  log.info("push worker running on its own thread");
  const worker = startPushRelayWorker({
    ...deps,
    usersWithMessageQueues: (userIds) =>
      new Promise((resolve, reject) => {
        const id = ++lastAsk;
        asks.set(id, { resolve, reject });
        const ask: FromWorker = { kind: "ask-queue-holders", id, userIds };
        port.postMessage(ask);
      }),
    wakes: (wake) => {
      wakeLoop = wake;
      return () => {
        wakeLoop = () => {};
      };
    },
  });
  port.on("message", (message: ToWorker) => {
    if (message.kind === "wake") wakeLoop();
    else if (message.kind === "queue-holders") {
      asks.get(message.id)?.resolve(new Set(message.userIds));
      asks.delete(message.id);
    } else if (message.kind === "stop") {
      void (async () => {
        // A decision waiting for an answer is tried again later rather than decided blind.
        for (const ask of asks.values()) ask.reject(new Error("the push worker is stopping"));
        asks.clear();
        await worker.stop();
        await store.close();
        const stopped: FromWorker = { kind: "stopped" };
        port.postMessage(stopped);
      })();
    }
  });
}

/** The configuration this thread was started with, if it is a push worker's thread. */
export function pushThreadConfig(): Config | null {
  if (isMainThread || !parentPort) return null;
  return (workerData as Partial<ThreadData> | null)?.parleyPushWorker === true ? (workerData as ThreadData).config : null;
}

/**
 * WAL checkpoints off the main thread. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses its threshold, on the writer, so every so often a request paid for copying the WAL
 * back into the database file (measured alone: about 26 us of COMMIT per message with it, 11 us
 * without). Here the writer's automatic checkpoint is off and a worker thread, with its own
 * connection, runs a PASSIVE checkpoint (which waits for nobody) CHECKPOINT_DELAY_MS after the
 * writer reports a write (at most one a delay while writes go on), and never while nothing is
 * written, so an idle server does not wake. Should the worker fail, the writer checkpoints for
 * itself again.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type SqliteDatabase from "better-sqlite3";

const CHECKPOINT_DELAY_MS = 200;

/** SQLite's default automatic checkpoint threshold, in pages, restored if the worker fails. */
const AUTOCHECKPOINT_PAGES = 1000;

// Plain CommonJS for an eval'd worker: it runs without the TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 5000");
const checkpoint = db.prepare("pragma wal_checkpoint(PASSIVE)");
parentPort.on("message", (message) => {
  if (message === "checkpoint") {
    checkpoint.get();
    return;
  }
  db.close();
  parentPort.close();
});
`;

/** The running worker: told of the writer's writes; stop() it before closing the writer. */
type Checkpointer = { noteWrite(): void; stop(): Promise<void> };

/** Starts checkpointing `file` in a worker, and turns the writer's own checkpoints off. */
export function startCheckpointer(file: string, writer: SqliteDatabase.Database): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
  worker.unref();
  writer.pragma("wal_autocheckpoint = 0");
  let stopping = false;
  let failure: unknown = null;
  let timer: NodeJS.Timeout | null = null;
  worker.once("error", (error) => (failure = error));
  const exited = new Promise<void>((resolve) =>
    worker.once("exit", () => {
      if (!stopping) {
        if (writer.open) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
        process.emitWarning(`SQLite checkpoint worker stopped (${String(failure ?? "no error")}); the writer checkpoints for itself again`);
      }
      resolve();
    }),
  );
  return {
    noteWrite() {
      if (timer !== null || stopping) return;
      timer = setTimeout(() => {
        timer = null;
        if (!stopping) worker.postMessage("checkpoint");
      }, CHECKPOINT_DELAY_MS);
      timer.unref();
    },
    async stop() {
      if (stopping) return exited;
      stopping = true;
      if (timer !== null) clearTimeout(timer);
      // Unreferenced, the worker would not keep the event loop alive until it has closed.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}

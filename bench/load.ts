/**
 * The load generator: N concurrent workers, each on its own keep-alive connection, send a fixed list of
 * requests round-robin for a fixed time, after an unrecorded warm-up, and report throughput and
 * latency percentiles. It runs in its own process (runLoadInChild) so it never shares an event
 * loop with the server it measures; run directly, it reads its options as JSON on stdin and
 * prints the result as JSON on stdout.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { encodeRequest, RawConnection } from "./raw-http.ts";

/** One request the workers send; `body` is sent as is (set content-type in `headers`). */
export type LoadRequest = { method: "GET" | "POST" | "PATCH"; path: string; headers?: Record<string, string>; body?: string };

/** What to run: `url` is the server's base (http://127.0.0.1:port), only loopback allowed. */
export type LoadOptions = {
  url: string;
  requests: LoadRequest[];
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
  /** When set, a 200 answer counts as an error unless its body contains this text. */
  expectBody?: string;
};

/** Throughput and latency of one run; `errors` are non-200 answers, unexpected bodies and failures. */
export type LoadResult = {
  /** Answers received in all, warm-up and late ones included (for CPU per request). */
  answered: number;
  ok: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  concurrency: number;
  firstError: string | null;
};

// A request still unanswered after this long is a failure, so a stuck server cannot hang the run.
const REQUEST_TIMEOUT_MS = 30_000;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

/** Runs the load in this process (use runLoadInChild from a process that hosts a server). */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const base = new URL(opts.url);
  if (base.hostname !== "127.0.0.1") throw new Error(`load tests target 127.0.0.1 only, not ${base.hostname}`);
  if (opts.requests.length === 0) throw new Error("no requests to send");
  // Encoded once, so each send only writes bytes; raw sockets, not http.request: on this 2-core
  // machine the client's own cost would otherwise cap the bare server's figure.
  const encoded = opts.requests.map((r) => encodeRequest(base, r.method, r.path, r.headers ?? {}, r.body));
  const startAt = performance.now() + opts.warmupSeconds * 1000;
  const endAt = startAt + opts.seconds * 1000;
  let latencies = new Float64Array(1 << 16);
  let ok = 0;
  let errors = 0;
  let firstError: string | null = null;
  let next = 0;
  let answered = 0;

  const worker = async () => {
    const connection = new RawConnection(base, { timeoutMs: REQUEST_TIMEOUT_MS });
    while (performance.now() < endAt) {
      const index = next++ % opts.requests.length;
      const req = opts.requests[index];
      const t0 = performance.now();
      let failure: string | null = null;
      try {
        const res = await connection.request(encoded[index]);
        if (res.status !== 200) failure = `HTTP ${res.status} ${req.method} ${req.path}: ${res.body.slice(0, 300)}`;
        else if (opts.expectBody !== undefined && !res.body.includes(opts.expectBody)) failure = `unexpected body: ${res.body.slice(0, 300)}`;
      } catch (err) {
        failure = `${req.method} ${req.path}: ${String(err)}`;
      }
      const t1 = performance.now();
      answered += 1;
      // Only answers that arrive inside the measured window count.
      if (t0 < startAt || t1 > endAt) continue;
      if (failure !== null) {
        errors += 1;
        firstError ??= failure;
        continue;
      }
      if (ok === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[ok++] = t1 - t0;
    }
    connection.close();
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const sorted = latencies.slice(0, ok).sort();
  return {
    answered,
    ok,
    errors,
    seconds: opts.seconds,
    rps: ok / opts.seconds,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : 0,
    concurrency: opts.concurrency,
    firstError,
  };
}

const SELF = fileURLToPath(import.meta.url);

/** Runs the load generator in a child process; killed if it overruns its time by 60 s. */
export function runLoadInChild(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", SELF], { cwd: path.dirname(SELF), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const limitMs = (opts.seconds + opts.warmupSeconds + 60) * 1000;
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`load generator exited with ${code}: ${err.slice(0, 2000)}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch {
        reject(new Error(`load generator printed no result: ${out.slice(0, 500)} ${err.slice(0, 500)}`));
      }
    });
    child.stdin.end(JSON.stringify(opts));
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const opts = JSON.parse(await readStdin()) as LoadOptions;
  const result = await runLoad(opts);
  process.stdout.write(JSON.stringify(result));
}

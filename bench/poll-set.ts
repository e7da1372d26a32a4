/**
 * The fan-out scenario's clients: registering event queues (POST /register, a few at a time,
 * bounded in time, with progress lines), and a set of long polls, one connection each, that
 * times how long after a send every poll has returned it.
 */
import fs from "node:fs";
import { basicAuth, type BenchUser } from "./org.ts";
import { encodeRequest, RawConnection, type RawAnswer } from "./raw-http.ts";
import { waitUntilIdle, type BenchServer } from "./servers.ts";

/** One registered queue and the id of the last event its client has seen. */
export type BenchQueue = { id: string; user: BenchUser; lastEventId: number };

/** One timed send: from writing the POST until its answer, the first poll answered, half of them and all of them. */
export type DeliveryRound = { sendMs: number; firstMs: number; medianMs: number; allMs: number; serverCpuMs: number | null; clientCpuMs: number };

const HEADERS = { "user-agent": "ParleyBench/1.0" };
// Concurrent POST /register clients: as many as the register scenario's throughput run.
const REGISTER_CLIENTS = 8;
const PROGRESS_EVERY_MS = 5000;
// Parley listens with Node's default backlog (511): open sockets in batches well under it.
const CONNECT_BATCH = 200;
// Bounds: the server must settle, and a send reach every poll, within these.
const SETTLE_LIMIT_MS = 120_000;
const ROUND_LIMIT_MS = 120_000;
// Sockets the harness needs besides the polls (servers' pipes, the sender, registration).
const SPARE_DESCRIPTORS = 200;

/** Fails early, with the fix, when this process may not open a socket per long poll. */
export function checkDescriptorLimit(polls: number): void {
  let limit = Infinity;
  try {
    const match = /^Max open files\s+(\d+)/m.exec(fs.readFileSync("/proc/self/limits", "utf8"));
    if (match) limit = Number(match[1]);
  } catch {
    return;
  }
  if (polls + SPARE_DESCRIPTORS > limit) throw new Error(`${polls} long polls need ${polls + SPARE_DESCRIPTORS} file descriptors; this process may open ${limit} (raise \`ulimit -n\`)`);
}

function registerBody(): string {
  // Message events only: the cheapest snapshot, and all a fan-out needs.
  return new URLSearchParams({ event_types: JSON.stringify(["message"]) }).toString();
}

/**
 * Registers queues until `queues` holds `target` of them, queue k for users[k % users.length],
 * REGISTER_CLIENTS at a time; prints progress; throws past `limitSeconds`. Returns the seconds taken.
 */
export async function registerQueues(url: string, users: BenchUser[], queues: BenchQueue[], target: number, limitSeconds: number, label: string): Promise<number> {
  const base = new URL(url);
  const body = registerBody();
  const requests = users.map((u) =>
    encodeRequest(base, "POST", "/api/v1/register", { ...HEADERS, authorization: basicAuth(u), "content-type": "application/x-www-form-urlencoded" }, body),
  );
  const started = performance.now();
  const from = queues.length;
  let next = from;
  let done = 0;
  let reported = started;
  const worker = async () => {
    const connection = new RawConnection(base);
    try {
      for (let k = next++; k < target; k = next++) {
        if (performance.now() - started > limitSeconds * 1000) {
          throw new Error(`registered ${from + done} of ${target} queues within the ${limitSeconds} s limit (BENCH_REGISTER_LIMIT_SECONDS)`);
        }
        const answer = await connection.request(requests[k % users.length]);
        const parsed = JSON.parse(answer.body) as { result?: string; queue_id?: string; last_event_id?: number };
        if (answer.status !== 200 || parsed.result !== "success" || !parsed.queue_id) throw new Error(`POST /register: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
        queues[k] = { id: parsed.queue_id, user: users[k % users.length], lastEventId: parsed.last_event_id ?? -1 };
        done += 1;
        const now = performance.now();
        if (now - reported >= PROGRESS_EVERY_MS) {
          reported = now;
          console.log(`    ${label}: ${(from + done).toLocaleString("en-US")} of ${target.toLocaleString("en-US")} queues registered (${Math.round(done / ((now - started) / 1000))}/s)`);
        }
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: REGISTER_CLIENTS }, worker));
  return (performance.now() - started) / 1000;
}

const median = (sorted: number[]) => (sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]);

/** The newest event id in a GET /events answer, or `fallback` when it holds none. */
function lastEventIdOf(body: string, fallback: number): number {
  const parsed = JSON.parse(body) as { events?: { id: number }[] };
  return (parsed.events ?? []).reduce((max, e) => Math.max(max, e.id), fallback);
}

/**
 * One long poll per queue, each on its own connection. Answers that arrive while no send is
 * being timed (heartbeats) are read and polled again at once; during a timed send the answer
 * holding the send's marker is kept, and every poll is renewed only after all have it.
 */
export class PollSet {
  private readonly base: URL;
  private readonly connections: RawConnection[];
  private readonly auth = new Map<number, string>();
  private marker: string | null = null;
  private arrivals: number[] = [];
  private held: (RawAnswer | null)[] = [];
  private onAll: (() => void) | null = null;
  private failure: Error | null = null;
  private onFailure: ((err: Error) => void) | null = null;
  private closed = false;

  constructor(
    private readonly server: BenchServer,
    private readonly queues: BenchQueue[],
  ) {
    this.base = new URL(server.url);
    this.connections = queues.map(() => new RawConnection(this.base));
  }

  /** Opens every connection (in batches the listen backlog takes), starts every poll and waits until the server is idle. */
  async open(): Promise<void> {
    for (let i = 0; i < this.connections.length; i += CONNECT_BATCH) {
      await Promise.all(this.connections.slice(i, i + CONNECT_BATCH).map((c) => c.connect()));
    }
    this.queues.forEach((_, i) => this.poll(i));
    await this.settle();
  }

  private poll(i: number): void {
    const q = this.queues[i];
    let auth = this.auth.get(q.user.id);
    if (auth === undefined) {
      auth = basicAuth(q.user);
      this.auth.set(q.user.id, auth);
    }
    const path = `/api/v1/events?queue_id=${encodeURIComponent(q.id)}&last_event_id=${q.lastEventId}`;
    this.connections[i]
      .request(encodeRequest(this.base, "GET", path, { ...HEADERS, authorization: auth }))
      .then((answer) => this.answered(i, answer))
      .catch((err: unknown) => this.fail(new Error(`long poll ${i}: ${String(err)}`)));
  }

  private answered(i: number, answer: RawAnswer): void {
    if (this.closed) return;
    if (answer.status !== 200) return this.fail(new Error(`long poll ${i}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`));
    if (this.marker !== null && answer.body.includes(this.marker)) {
      this.arrivals.push(answer.at);
      this.held[i] = answer;
      if (this.arrivals.length === this.queues.length) this.onAll?.();
      return;
    }
    // A heartbeat (or an event from before the send): read it, poll again at once.
    this.queues[i].lastEventId = lastEventIdOf(answer.body, this.queues[i].lastEventId);
    this.poll(i);
  }

  private fail(err: Error): void {
    if (this.closed) return;
    this.failure ??= err;
    this.onFailure?.(err);
  }

  /** Waits until the server has taken every poll (its CPU is idle); throws if a poll failed. */
  async settle(): Promise<void> {
    const idle = await waitUntilIdle(this.server, SETTLE_LIMIT_MS);
    if (this.failure) throw this.failure;
    if (!idle) throw new Error(`the server was still busy ${SETTLE_LIMIT_MS / 1000} s after the polls were sent`);
  }

  /**
   * Times one send: `send` writes it (its promise is the send's answer); resolves once every poll
   * has returned an answer containing `marker`, then renews every poll and waits for the server
   * to settle again.
   */
  async timeSend(marker: string, send: () => Promise<RawAnswer>, cpu: () => number | null): Promise<DeliveryRound> {
    if (this.failure) throw this.failure;
    this.marker = marker;
    this.arrivals = [];
    this.held = this.queues.map(() => null);
    const all = new Promise<void>((resolve, reject) => {
      this.onAll = resolve;
      this.onFailure = reject;
      setTimeout(() => reject(new Error(`after ${ROUND_LIMIT_MS / 1000} s, ${this.arrivals.length} of ${this.queues.length} polls had the message`)), ROUND_LIMIT_MS).unref();
    });
    const cpuBefore = cpu();
    const clientBefore = process.cpuUsage();
    const t0 = performance.now();
    const sent = send();
    // A send that fails ends the round at once rather than at its time limit.
    const refused = (answer: RawAnswer) => answer.status !== 200 || !answer.body.includes('"result":"success"');
    sent.then(
      (answer) => refused(answer) && this.onFailure?.(new Error(`the timed send failed: HTTP ${answer.status} ${answer.body.slice(0, 300)}`)),
      (err: unknown) => this.onFailure?.(new Error(`the timed send failed: ${String(err)}`)),
    );
    await all;
    const cpuAfter = cpu();
    const client = process.cpuUsage(clientBefore);
    const answer = await sent;
    this.marker = null;
    this.onAll = null;
    this.onFailure = null;
    const times = this.arrivals.map((at) => at - t0).sort((a, b) => a - b);
    this.held.forEach((held, i) => {
      if (held) this.queues[i].lastEventId = lastEventIdOf(held.body, this.queues[i].lastEventId);
      this.poll(i);
    });
    await this.settle();
    return {
      sendMs: answer.at - t0,
      firstMs: times[0] ?? 0,
      medianMs: median(times),
      allMs: times[times.length - 1] ?? 0,
      serverCpuMs: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) * 1000,
      clientCpuMs: (client.user + client.system) / 1000,
    };
  }

  /** Closes every connection (the server's waiting polls go when superseded or answered). */
  close(): void {
    this.closed = true;
    for (const c of this.connections) c.close();
  }
}

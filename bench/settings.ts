/**
 * The benchmark's knobs, from environment variables, with defaults that keep a run near 15
 * minutes; `--quick` (npm run bench -- --quick) shrinks every run and size for a look in under
 * two minutes that prints the report and leaves docs/benchmarks.md alone.
 */
import type { StoreKind } from "../test/helpers/stores.ts";

/** Every knob `npm run bench` reads (documented in docs/benchmarks.md). */
export type BenchSettings = {
  /** `--quick` (or BENCH_QUICK=1): short runs, small stores, 1,000 queues, the bare long-poll server measured once; never writes the docs. */
  quick: boolean;
  /** Measured seconds of each load run (BENCH_SECONDS). */
  seconds: number;
  /** Unrecorded warm-up seconds before each load run (BENCH_WARMUP_SECONDS). */
  warmupSeconds: number;
  /** Stores to measure (BENCH_STORES=sqlite,postgres). */
  stores: StoreKind[];
  /** Channel subscribers in the send scenario (BENCH_SUBSCRIBERS). */
  subscribers: number;
  /** Channel subscribers in the email scenario, every one away with email notifications on (BENCH_EMAIL_SUBSCRIBERS). */
  emailSubscribers: number;
  /** Concurrent senders (BENCH_SENDERS). */
  senders: number;
  /** Messages in the search scenario's store (BENCH_MESSAGES). */
  messages: number;
  /** Concurrent search clients, and user-group clients (BENCH_SEARCH_CLIENTS). */
  searchClients: number;
  /** Shortest one-client run of the search queries and user-group requests, in seconds (2; 0.25 with --quick). */
  minAloneSeconds: number;
  /** Users who each send one presence ping in the presence scenario's measured time (BENCH_PRESENCE_USERS). */
  presenceUsers: number;
  /** Channels of the register and message-list org (BENCH_CHANNELS). */
  channels: number;
  /** Messages seeded over those channels (BENCH_LIST_MESSAGES). */
  listMessages: number;
  /** Concurrent clients of the register and message-list throughput runs (BENCH_READ_CLIENTS). */
  readClients: number;
  /** Long-polling queue counts of the fan-out scenario, ascending (BENCH_QUEUES=1000,10000). */
  queues: number[];
  /** Users holding those queues, several each when there are more queues (BENCH_QUEUE_USERS). */
  queueUsers: number;
  /** Sends timed per queue count (BENCH_FANOUT_ROUNDS). */
  fanoutRounds: number;
  /** Longest time registering the queues may take, in seconds (BENCH_REGISTER_LIMIT_SECONDS). */
  registerLimitSeconds: number;
  /** Which scenarios run (BENCH_SCENARIOS=send,search,...; see SCENARIOS). */
  scenarios: Set<string>;
  /** Directory for V8 CPU profiles of the Parley server (and of the fan-out's bare long-poll server), or null (BENCH_PROFILE_DIR). */
  profileDir: string | null;
  /** Whether to rewrite docs/benchmarks.md (BENCH_WRITE_DOCS=0 to only print; always false with --quick). */
  writeDocs: boolean;
};

/** Every scenario, in the order they run; the default set is all of them. */
export const SCENARIOS = ["send", "search", "groups", "presence", "push", "email", "register", "messages", "fanout", "memory", "cluster", "webapp"] as const;

/** A positive number from the environment variable `name`, or `fallback` when it is unset or empty; anything else is an error. */
export function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

function list(name: string, fallback: string): string[] {
  return (process.env[name] ?? fallback)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Whether this run is the quick look: `--quick` on the command line (npm run bench -- --quick) or BENCH_QUICK=1. */
export function isQuick(argv: readonly string[] = process.argv.slice(2)): boolean {
  return argv.includes("--quick") || process.env.BENCH_QUICK === "1";
}

/** Reads the knobs; an unknown store or scenario name is an error, not silently skipped. */
export function loadSettings(): BenchSettings {
  const quick = isQuick();
  // Quick sizes: every default scenario on both stores in under two minutes on 2 cores.
  const pick = (full: number, short: number) => (quick ? short : full);
  const stores = list("BENCH_STORES", "sqlite,postgres");
  for (const s of stores) if (s !== "sqlite" && s !== "postgres") throw new Error(`BENCH_STORES: unknown store ${s}`);
  const scenarios = list("BENCH_SCENARIOS", SCENARIOS.join(","));
  const known: readonly string[] = SCENARIOS;
  for (const s of scenarios) if (!known.includes(s)) throw new Error(`BENCH_SCENARIOS: unknown scenario ${s} (known: ${SCENARIOS.join(", ")})`);
  const queues = list("BENCH_QUEUES", quick ? "1000" : "1000,10000").map((q) => {
    const n = Number(q);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_QUEUES: ${JSON.stringify(q)} is not a positive integer`);
    return n;
  });
  return {
    quick,
    seconds: num("BENCH_SECONDS", pick(10, 0.5)),
    warmupSeconds: num("BENCH_WARMUP_SECONDS", pick(2, 0.25)),
    stores: stores.filter((s): s is StoreKind => s === "sqlite" || s === "postgres"),
    subscribers: Math.round(num("BENCH_SUBSCRIBERS", 100)),
    emailSubscribers: Math.round(num("BENCH_EMAIL_SUBSCRIBERS", pick(1000, 100))),
    senders: Math.round(num("BENCH_SENDERS", 50)),
    messages: Math.round(num("BENCH_MESSAGES", pick(200_000, 5_000))),
    searchClients: Math.round(num("BENCH_SEARCH_CLIENTS", 4)),
    minAloneSeconds: pick(2, 0.25),
    presenceUsers: Math.round(num("BENCH_PRESENCE_USERS", pick(1000, 100))),
    channels: Math.round(num("BENCH_CHANNELS", pick(200, 20))),
    listMessages: Math.round(num("BENCH_LIST_MESSAGES", pick(50_000, 2_000))),
    readClients: Math.round(num("BENCH_READ_CLIENTS", 8)),
    queues: [...new Set(queues)].sort((a, b) => a - b),
    queueUsers: Math.round(num("BENCH_QUEUE_USERS", pick(1000, 100))),
    fanoutRounds: Math.round(num("BENCH_FANOUT_ROUNDS", pick(5, 2))),
    registerLimitSeconds: num("BENCH_REGISTER_LIMIT_SECONDS", 300),
    scenarios: new Set(scenarios),
    profileDir: process.env.BENCH_PROFILE_DIR || null,
    writeDocs: !quick && process.env.BENCH_WRITE_DOCS !== "0",
  };
}

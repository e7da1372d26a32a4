/** The benchmark's knobs, from environment variables, with defaults that keep a run near 7 minutes. */
import type { StoreKind } from "../test/helpers/stores.ts";

/** Every knob `npm run bench` reads (documented in docs/benchmarks.md). */
export type BenchSettings = {
  /** Measured seconds of each load run (BENCH_SECONDS). */
  seconds: number;
  /** Unrecorded warm-up seconds before each load run (BENCH_WARMUP_SECONDS). */
  warmupSeconds: number;
  /** Stores to measure (BENCH_STORES=sqlite,postgres). */
  stores: StoreKind[];
  /** Channel subscribers in the send scenario (BENCH_SUBSCRIBERS). */
  subscribers: number;
  /** Concurrent senders (BENCH_SENDERS). */
  senders: number;
  /** Messages in the search scenario's store (BENCH_MESSAGES). */
  messages: number;
  /** Concurrent search clients, and user-group clients (BENCH_SEARCH_CLIENTS). */
  searchClients: number;
  /** Users who each send one presence ping in the presence scenario's measured time (BENCH_PRESENCE_USERS). */
  presenceUsers: number;
  /** Which scenarios run (BENCH_SCENARIOS=send,search,groups,presence,push,webapp). */
  scenarios: Set<string>;
  /** Directory for V8 CPU profiles of the Parley server, or null (BENCH_PROFILE_DIR). */
  profileDir: string | null;
  /** Whether to rewrite docs/benchmarks.md (BENCH_WRITE_DOCS=0 to only print). */
  writeDocs: boolean;
};

function num(name: string, fallback: number): number {
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

/** Reads the knobs; an unknown store or scenario name is an error, not silently skipped. */
export function loadSettings(): BenchSettings {
  const stores = list("BENCH_STORES", "sqlite,postgres");
  for (const s of stores) if (s !== "sqlite" && s !== "postgres") throw new Error(`BENCH_STORES: unknown store ${s}`);
  const scenarios = list("BENCH_SCENARIOS", "send,search,groups,presence,push,webapp");
  for (const s of scenarios) if (!["send", "search", "groups", "presence", "push", "webapp"].includes(s)) throw new Error(`BENCH_SCENARIOS: unknown scenario ${s}`);
  return {
    seconds: num("BENCH_SECONDS", 10),
    warmupSeconds: num("BENCH_WARMUP_SECONDS", 2),
    stores: stores.filter((s): s is StoreKind => s === "sqlite" || s === "postgres"),
    subscribers: Math.round(num("BENCH_SUBSCRIBERS", 100)),
    senders: Math.round(num("BENCH_SENDERS", 50)),
    messages: Math.round(num("BENCH_MESSAGES", 200_000)),
    searchClients: Math.round(num("BENCH_SEARCH_CLIENTS", 4)),
    presenceUsers: Math.round(num("BENCH_PRESENCE_USERS", 1000)),
    scenarios: new Set(scenarios),
    profileDir: process.env.BENCH_PROFILE_DIR || null,
    writeDocs: process.env.BENCH_WRITE_DOCS !== "0",
  };
}

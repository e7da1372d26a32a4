/** The register and message-list tables (bench/scenario-reads.ts) of the benchmark report, with PostgreSQL / SQLite ratios. */
import type { ReadFigures, ReadsResult } from "./scenario-reads.ts";
import type { MeasuredLoad } from "./servers.ts";

type NotMeasured = { store: string; reason: string };

/** The bare server answering a GET shaped like the message list, with one client and with the scenario's clients. */
export type ReadsBaseline = { alone: MeasuredLoad; loaded: MeasuredLoad };

/** Issue 15's target: PostgreSQL within this factor of SQLite, on latency and on throughput. */
export const READS_TARGET_RATIO = 1.5;

const STORE_NAMES: Record<string, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const cpu = (l: MeasuredLoad) => (l.serverCpuMsPerRequest === null ? "n/a" : `${l.serverCpuMsPerRequest.toFixed(3)} ms`);

type Kind = "register" | "messageList";
const REQUESTS: { kind: Kind; label: string }[] = [
  { kind: "register", label: "full POST /register" },
  { kind: "messageList", label: "GET /messages, 100 newest" },
];

function measured(r: ReadsResult | NotMeasured): r is ReadsResult {
  return !("reason" in r);
}

/** PostgreSQL's figures over SQLite's for one request kind, or null when either is missing. */
export function readsRatios(results: readonly (ReadsResult | NotMeasured)[], kind: Kind): { p50: number; p99: number; throughput: number; cpu: number | null; met: boolean } | null {
  const find = (store: string) => results.filter(measured).find((r) => r.store === store)?.[kind] ?? null;
  const sqlite = find("sqlite");
  const postgres = find("postgres");
  if (!sqlite || !postgres || sqlite.alone.p50Ms === 0 || postgres.loaded.rps === 0) return null;
  const p50 = postgres.alone.p50Ms / sqlite.alone.p50Ms;
  const throughput = sqlite.loaded.rps / postgres.loaded.rps;
  const a = postgres.loaded.serverCpuMsPerRequest;
  const b = sqlite.loaded.serverCpuMsPerRequest;
  return { p50, p99: postgres.alone.p99Ms / Math.max(sqlite.alone.p99Ms, 1e-9), throughput, cpu: a === null || b === null || b === 0 ? null : a / b, met: p50 <= READS_TARGET_RATIO && throughput <= READS_TARGET_RATIO };
}

function row(store: string, label: string, f: ReadFigures): string {
  return `| ${store} | ${label} | ${kb(f.answerBytes)} | **${ms(f.alone.p50Ms)}** / ${ms(f.alone.p99Ms)} ms | ${int(f.alone.rps)} | **${int(f.loaded.rps)}** | ${ms(f.loaded.p50Ms)} / ${ms(f.loaded.p99Ms)} ms | ${cpu(f.loaded)} | ${f.alone.errors + f.loaded.errors} |`;
}

/** The figures per store and request, the bare server's beside them, then the ratios against the target. */
export function readsTables(results: readonly (ReadsResult | NotMeasured)[], bare: ReadsBaseline | null): string[] {
  const done = results.filter(measured);
  const first = done[0];
  const clients = first?.clients ?? bare?.loaded.concurrency ?? 8;
  const lines: string[] = [];
  if (first) {
    const unread = first.unreadCount === null ? "" : ` (the first one's snapshot counts ${int(first.unreadCount)} unread)`;
    const parts = [
      `Org: ${int(first.users)} users, ${int(first.channels)} public channels (each user in ${int(first.subscriptionsPerUser)}), ${int(first.messages)} messages over 30 days; ` +
        `the measured users (${first.readers}, in turn) have read all but their newest ${int(first.unreadPerReader)}${unread}.`,
      first.register ? "POST /register sends no event_types (the whole snapshot) and makes a queue each time." : "",
      first.listed === null ? "" : `GET /messages answered ${first.listed} messages (expected 100).`,
    ];
    lines.push(parts.filter((p) => p !== "").join(" "), "");
  }
  lines.push(
    `| store | request | answer | 1 client: p50 / p99 | 1 client: req/s | ${clients} clients: req/s | ${clients} clients: p50 / p99 | server CPU per request (${clients} clients) | errors |`,
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const r of results) {
    const name = STORE_NAMES[r.store] ?? r.store;
    if (!measured(r)) {
      lines.push(`| ${name} | not measured: ${r.reason} | | | | | | | |`);
      continue;
    }
    for (const { kind, label } of REQUESTS) {
      const f = r[kind];
      if (f) lines.push(row(name, label, f));
    }
  }
  if (bare) {
    lines.push(
      `| bare \`http\` server (same run, the ceiling) | GET shaped like the message list | 0.1 KB | ${ms(bare.alone.p50Ms)} / ${ms(bare.alone.p99Ms)} ms | ${int(bare.alone.rps)} | ${int(bare.loaded.rps)} | ${ms(bare.loaded.p50Ms)} / ${ms(bare.loaded.p99Ms)} ms | ${cpu(bare.loaded)} | ${bare.alone.errors + bare.loaded.errors} |`,
    );
  }
  const ratios = REQUESTS.map(({ kind, label }) => ({ label, r: readsRatios(results, kind) })).filter((x) => x.r !== null);
  if (ratios.length === 0) return lines;
  lines.push(
    "",
    `PostgreSQL against SQLite in this run (target: both ratios at most ${READS_TARGET_RATIO}):`,
    "",
    `| request | p50, PostgreSQL / SQLite (1 client) | p99, PostgreSQL / SQLite (1 client) | req/s, SQLite / PostgreSQL (${clients} clients) | server CPU per request, PostgreSQL / SQLite | within ${READS_TARGET_RATIO}x |`,
    "| --- | ---: | ---: | ---: | ---: | --- |",
  );
  for (const { label, r } of ratios) {
    if (!r) continue;
    lines.push(`| ${label} | **${r.p50.toFixed(2)}** | ${r.p99.toFixed(2)} | **${r.throughput.toFixed(2)}** | ${r.cpu === null ? "n/a" : r.cpu.toFixed(2)} | ${r.met ? "met" : "NOT met"} |`);
  }
  return lines;
}

/** Interpretation lines for the register and message-list figures. */
export function readsInterpretation(results: readonly (ReadsResult | NotMeasured)[]): string[] {
  const out: string[] = [];
  for (const { kind, label } of REQUESTS) {
    const r = readsRatios(results, kind);
    const figures = (store: string) => results.filter(measured).find((x) => x.store === store)?.[kind];
    const sqlite = figures("sqlite");
    const postgres = figures("postgres");
    if (!r || !sqlite || !postgres) continue;
    out.push(
      `- ${label}: PostgreSQL p50 ${ms(postgres.alone.p50Ms)} ms against SQLite's ${ms(sqlite.alone.p50Ms)} ms (${r.p50.toFixed(2)}x), ` +
        `${int(postgres.loaded.rps)}/s against ${int(sqlite.loaded.rps)}/s with ${postgres.loaded.concurrency} clients (${r.throughput.toFixed(2)}x); target within ${READS_TARGET_RATIO}x: ${r.met ? "met" : "NOT met"}.`,
    );
  }
  return out;
}

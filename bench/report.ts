/**
 * The benchmark report: a Markdown page (docs/benchmarks.md) with each figure next to the bare
 * server's measured in the same run, the command and machine that produced it, and a generated
 * interpretation. Hand-written notes below KEEP_MARKER survive a rerun.
 */
import type { MeasuredLoad } from "./servers.ts";
import type { GroupsResult, RequestFigures } from "./scenario-groups.ts";
import type { PresencePass, PresenceResult } from "./scenario-presence.ts";
import type { ClusterResult } from "./scenario-cluster.ts";
import type { FanoutResult } from "./scenario-fanout.ts";
import type { PushResult } from "./scenario-push.ts";
import type { EmailResult } from "./scenario-email.ts";
import type { ReadsResult } from "./scenario-reads.ts";
import { clusterInterpretation, clusterTable } from "./report-cluster.ts";
import { fanoutInterpretation, fanoutTable, memoryTable } from "./report-fanout.ts";
import { pushTable } from "./report-push.ts";
import { emailTable } from "./report-email.ts";
import { readsInterpretation, readsTables, type ReadsBaseline } from "./report-reads.ts";
import { webAppTable } from "./report-webapp.ts";
import type { WebAppResult } from "./scenario-webapp.ts";
import type { SearchResult } from "./scenario-search.ts";
import type { SendResult } from "./scenario-send.ts";

/** Where and how the run happened. */
export type MachineFacts = { date: string; cpus: number; cpuModel: string; memoryGiB: number; node: string; sqlite: string; postgres: string | null; loadAverage: number[] };

/** The bare server's figures: POST like the senders, GET like the search clients. */
export type Baseline = { post: MeasuredLoad; get: MeasuredLoad };

/** A scenario that could not be measured, and why. */
export type NotMeasured = { store: string; reason: string };

/** Everything one run measured. */
export type RunResults = {
  command: string;
  machine: MachineFacts;
  seconds: number;
  warmupSeconds: number;
  totalSeconds: number;
  baselineBefore: Baseline;
  baselineAfter: Baseline;
  sends: (SendResult | NotMeasured)[];
  searches: (SearchResult | NotMeasured)[];
  groups: (GroupsResult | NotMeasured)[];
  presence: (PresenceResult | NotMeasured)[];
  push: (PushResult | NotMeasured)[];
  /** Missed-message emails, per store (scenario `email`). */
  email: (EmailResult | NotMeasured)[];
  /** POST /register and GET /messages, per store (scenarios `register`, `messages`). */
  reads: (ReadsResult | NotMeasured)[];
  /** The bare server with the read scenarios' clients, or null when neither ran. */
  readsBaseline: ReadsBaseline | null;
  /** Long-poll fan-out and memory, per store (scenarios `fanout`, `memory`). */
  fanout: (FanoutResult | NotMeasured)[];
  /** PostgreSQL + Redis behind nginx with one and three processes (scenario `cluster`). */
  cluster: (ClusterResult | NotMeasured)[];
  webapp: (WebAppResult | NotMeasured)[];
};

/** Everything below this line in docs/benchmarks.md is kept as it is by a rerun. */
export const KEEP_MARKER = "<!-- bench/run.ts rewrites everything above this line and keeps everything below it -->";

/** Issue 3's targets, and the bar issue 4's user-group requests are held to. */
export const TARGETS = { sqliteSendsPerSecond: 2_000, searchP99Ms: 50, groupsP99Ms: 50 };

const STORE_NAMES: Record<string, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

const int = (n: number) => Math.round(n).toLocaleString("en-US");
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;

function measured<T extends object>(r: T | NotMeasured): r is T {
  return !("reason" in r);
}

/** The mean of the two bare-server runs (before and after the scenarios). */
export function baselineMean(r: RunResults, kind: keyof Baseline): number {
  return (r.baselineBefore[kind].rps + r.baselineAfter[kind].rps) / 2;
}

function cpu(l: MeasuredLoad): string {
  return l.serverCpuMsPerRequest === null ? "n/a" : `${l.serverCpuMsPerRequest.toFixed(3)} ms`;
}

/** Bare CPU per request over Parley's: the share of the ceiling, independent of other load. */
function cpuRatio(parley: MeasuredLoad, bare: MeasuredLoad): string {
  if (parley.serverCpuMsPerRequest === null || bare.serverCpuMsPerRequest === null || parley.serverCpuMsPerRequest === 0) return "n/a";
  return pct(bare.serverCpuMsPerRequest / parley.serverCpuMsPerRequest);
}

function sendTable(r: RunResults): string[] {
  const bare = baselineMean(r, "post");
  const bareLoad = r.baselineBefore.post;
  const lines = [
    `| store | sends/s | p50 | p99 | errors | stored messages | server CPU per send | bare server req/s (same run) | bare server CPU per request | sends/s over bare req/s | bare CPU over Parley CPU per request |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const s of r.sends) {
    const name = STORE_NAMES[s.store] ?? s.store;
    if (!measured(s)) {
      lines.push(`| ${name} | not measured: ${s.reason} | | | | | | ${int(bare)} | ${cpu(bareLoad)} | | |`);
      continue;
    }
    const l = s.load;
    lines.push(
      `| ${name} | **${int(l.rps)}** | ${ms(l.p50Ms)} ms | ${ms(l.p99Ms)} ms | ${l.errors} | ${int(s.storedMessages)} | ${cpu(l)} | ${int(bare)} | ${cpu(bareLoad)} | ${pct(l.rps / bare)} | ${cpuRatio(l, bareLoad)} |`,
    );
  }
  return lines;
}

function searchTables(r: RunResults): string[] {
  const bare = r.baselineBefore.get;
  const lines = [
    `| store | messages (loaded in) | clients | searches/s | p50 | p99 | errors | server CPU per search | bare server (same run, GET, same clients): req/s, p50, p99, CPU per request |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |`,
  ];
  const done = r.searches.filter(measured);
  for (const s of r.searches) {
    const name = STORE_NAMES[s.store] ?? s.store;
    if (!measured(s)) {
      lines.push(`| ${name} | not measured: ${s.reason} | | | | | | | |`);
      continue;
    }
    const l = s.load;
    lines.push(
      `| ${name} | ${int(s.messages)} (${int(s.seedSeconds)} s) | ${s.clients} | ${int(l.rps)} | ${ms(l.p50Ms)} ms | **${ms(l.p99Ms)} ms** | ${l.errors} | ${cpu(l)} | ${int(bare.rps)}/s, ${ms(bare.p50Ms)} ms, ${ms(bare.p99Ms)} ms, ${cpu(bare)} |`,
    );
  }
  if (done.length === 0) return lines;
  lines.push("", "Each query alone (one client); `matching` counts seeded messages holding every word of the query, `returned` what GET /messages answered (expected: min(50, matching)):", "");
  lines.push(`| query | matching | ${done.map((s) => `${STORE_NAMES[s.store]} returned | ${STORE_NAMES[s.store]} p50 / p99`).join(" | ")} |`);
  lines.push(`| --- | ---: | ${done.map(() => "---: | ---:").join(" | ")} |`);
  done[0].perQuery.forEach((q, i) => {
    const cells = done.map((s) => {
      const p = s.perQuery[i];
      const flag = p.returned === p.expected ? "" : ` (expected ${p.expected})`;
      return `${p.returned}${flag} | ${ms(p.p50Ms)} / ${ms(p.p99Ms)} ms`;
    });
    lines.push(`| \`${q.query}\` | ${int(q.matches)} | ${cells.join(" | ")} |`);
  });
  return lines;
}

function groupsTable(r: RunResults): string[] {
  const bare = r.baselineBefore.get;
  const lines = [
    `| store | request | clients | req/s | p50 | p99 | errors | server CPU per request | one client alone: p50 / p99 | bare server (same run, GET, same clients): req/s, p50, p99, CPU per request |`,
    `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |`,
  ];
  for (const g of r.groups) {
    const name = STORE_NAMES[g.store] ?? g.store;
    if (!measured(g)) {
      lines.push(`| ${name} | not measured: ${g.reason} | | | | | | | | |`);
      continue;
    }
    const row = (request: string, { loaded: l, alone }: RequestFigures) =>
      `| ${name} | ${request} | ${g.clients} | ${int(l.rps)} | ${ms(l.p50Ms)} ms | **${ms(l.p99Ms)} ms** | ${l.errors} | ${cpu(l)} | ${ms(alone.p50Ms)} / ${ms(alone.p99Ms)} ms | ${int(bare.rps)}/s, ${ms(bare.p50Ms)} ms, ${ms(bare.p99Ms)} ms, ${cpu(bare)} |`;
    lines.push(row(`GET /user_groups (${int(g.groups)} groups)`, g.list), row(`PATCH /user_groups/{id}, can_manage_group through ${g.depth} levels`, g.manage));
  }
  return lines;
}

/** CPU ms per request of a pass: with the idle server's share of the window, and without it. */
function perRequest(pass: PresencePass, idleCpuMs: number | null): { gross: number | null; net: number | null } {
  if (pass.serverCpuMs === null || pass.requests === 0) return { gross: null, net: null };
  return { gross: pass.serverCpuMs / pass.requests, net: idleCpuMs === null ? null : Math.max(0, pass.serverCpuMs - idleCpuMs) / pass.requests };
}

/** The share of one core that 1,000 requests a minute at `msEach` of CPU take. */
const coreAt1000PerMinute = (msEach: number | null) => (msEach === null ? "n/a" : `${(((msEach * 1000) / 60_000) * 100).toFixed(2)}%`);
const msOrNa = (n: number | null) => (n === null ? "n/a" : `${n.toFixed(3)} ms`);

function presenceTable(r: RunResults): string[] {
  const lines = [
    `| store | request | users (one request each, spread over the window) | server CPU per request (window / requests) | without the idle server's CPU | % of one core at 1,000 a minute | p50 / p99 | errors | presence rows written |`,
    `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const p of r.presence) {
    const name = STORE_NAMES[p.store] ?? p.store;
    if (!measured(p)) {
      lines.push(`| ${name} | not measured: ${p.reason} | | | | | | | |`);
      continue;
    }
    const row = (label: string, pass: PresencePass, writes: string, idleCpuMs = p.idleCpuMs) => {
      const { gross, net } = perRequest(pass, idleCpuMs);
      return `| ${name} | ${label} | ${int(p.users)} in ${p.seconds} s | ${msOrNa(gross)} | ${msOrNa(net)} | **${coreAt1000PerMinute(gross)}** | ${ms(pass.p50Ms)} / ${ms(pass.p99Ms)} ms | ${pass.errors} | ${writes} |`;
    };
    lines.push(row("ping (`ping_only=true`, stored presence 58 s old: each writes)", p.pings, int(p.writes)));
    lines.push(row("poll (`last_update_id` before the pings: each answer holds every changed presence; writes nothing)", p.polls, "0 expected"));
    lines.push(row("floor: GET /users/{id}/status, paced the same", p.floor, ""));
    lines.push(row("ceiling: the bare Node `http` server answering the same pings, paced the same", p.ceiling, "", null));
  }
  return lines;
}

function baselineTable(r: RunResults): string[] {
  const row = (label: string, b: Baseline) =>
    `| ${label} | ${int(b.post.rps)} | ${ms(b.post.p50Ms)} / ${ms(b.post.p99Ms)} ms | ${cpu(b.post)} | ${int(b.get.rps)} | ${ms(b.get.p50Ms)} / ${ms(b.get.p99Ms)} ms | ${cpu(b.get)} |`;
  return [
    `| bare \`http\` server | POST req/s (${r.baselineBefore.post.concurrency} clients) | p50 / p99 | CPU per request | GET req/s (${r.baselineBefore.get.concurrency} clients) | p50 / p99 | CPU per request |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: |`,
    row("before the scenarios", r.baselineBefore),
    row("after the scenarios", r.baselineAfter),
  ];
}

/** The cluster scenario's fan-out across its processes, as rows of the fan-out table. */
function clusterFanout(r: RunResults): FanoutResult[] {
  return r.cluster.filter(measured).map((c) => c.fanout);
}

/** Sentences on what the figures mean against issue 3's targets. */
export function interpretation(r: RunResults): string[] {
  const out: string[] = [];
  const bare = baselineMean(r, "post");
  for (const s of r.sends.filter(measured)) {
    const name = STORE_NAMES[s.store];
    const target = s.store === "sqlite" ? ` The target is ${int(TARGETS.sqliteSendsPerSecond)}/s: ${s.load.rps >= TARGETS.sqliteSendsPerSecond ? "met" : "NOT met"}.` : "";
    out.push(
      `- ${name}: ${int(s.load.rps)} channel messages/s to ${s.subscribers} subscribers from ${s.senders} concurrent senders, ${pct(s.load.rps / bare)} of the bare server's ${int(bare)} req/s; ` +
        `the server spent ${cpu(s.load)} of CPU per send against ${cpu(r.baselineBefore.post)} per bare request (${cpuRatio(s.load, r.baselineBefore.post)}).${target}`,
    );
  }
  for (const s of r.searches.filter(measured)) {
    const name = STORE_NAMES[s.store];
    const worst = [...s.perQuery].sort((a, b) => b.p99Ms - a.p99Ms)[0];
    const wrong = s.perQuery.filter((q) => q.returned !== q.expected).map((q) => `\`${q.query}\``);
    const verdict = s.load.p99Ms < TARGETS.searchP99Ms ? "met" : "NOT met";
    out.push(
      `- ${name} search over ${int(s.messages)} messages: p50 ${ms(s.load.p50Ms)} ms, p99 ${ms(s.load.p99Ms)} ms with ${s.clients} clients (target p99 < ${TARGETS.searchP99Ms} ms: ${verdict}); ` +
        `the slowest query alone is \`${worst?.query}\` (${int(worst?.matches ?? 0)} matching, p99 ${ms(worst?.p99Ms ?? 0)} ms).` +
        (wrong.length ? ` Result counts differ from the seeded data for ${wrong.join(", ")}.` : ""),
    );
  }
  for (const g of r.groups.filter(measured)) {
    const p99 = ({ loaded, alone }: RequestFigures) =>
      `p99 ${ms(loaded.p99Ms)} ms with ${g.clients} clients (${loaded.p99Ms < TARGETS.groupsP99Ms ? "met" : "NOT met"}), ${ms(alone.p99Ms)} ms alone`;
    out.push(
      `- ${STORE_NAMES[g.store]} user groups (${int(g.groups)} groups nested ${g.depth} deep, seeded in ${ms(g.seedSeconds)} s; bar: p99 < ${TARGETS.groupsP99Ms} ms): ` +
        `GET /user_groups ${p99(g.list)}; PATCH /user_groups/{id} with can_manage_group through ${g.depth} levels ${p99(g.manage)}.`,
    );
  }
  for (const p of r.presence.filter(measured)) {
    const { gross, net } = perRequest(p.pings, p.idleCpuMs);
    const poll = perRequest(p.polls, p.idleCpuMs);
    const bare = perRequest(p.ceiling, null).gross;
    out.push(
      `- ${STORE_NAMES[p.store]} presence: a ping costs ${msOrNa(gross)} of server CPU (${msOrNa(net)} above the idle server), so ${int(1000)} users pinging once a minute take ${coreAt1000PerMinute(gross)} of one core ` +
        `(target: well under 1%, read as under 0.5%: ${gross !== null && (gross * 1000) / 60_000 < 0.005 ? "met" : "NOT met"}); ${int(p.writes)} of ${int(p.pings.requests)} pings wrote. ` +
        `A full poll answering ${int(p.users)} changed presences costs ${msOrNa(poll.gross)} (${coreAt1000PerMinute(poll.gross)} of a core at 1,000 a minute); ` +
        `the smallest authenticated read, paced the same, costs ${msOrNa(perRequest(p.floor, p.idleCpuMs).gross)}, ` +
        `and the bare Node server answering the same pings ${msOrNa(bare)}${gross !== null && bare ? ` (a ping costs ${(gross / bare).toFixed(1)}x that)` : ""}.`,
    );
  }
  out.push(...readsInterpretation(r.reads), ...fanoutInterpretation([...r.fanout, ...clusterFanout(r)]), ...clusterInterpretation(r.cluster));
  const drift = Math.abs(r.baselineAfter.post.rps - r.baselineBefore.post.rps) / Math.max(1, r.baselineBefore.post.rps);
  out.push(`- The bare server moved ${pct(drift)} between the start and the end of the run; other load on the machine (load average ${r.machine.loadAverage.map((n) => n.toFixed(2)).join(", ")} at the start) shifts every figure, the ratios less.`);
  return out;
}

/** The generated part of docs/benchmarks.md. */
export function renderMarkdown(r: RunResults): string {
  const m = r.machine;
  return [
    "# Benchmarks",
    "",
    "Generated by `npm run bench` (bench/run.ts). Absolute figures depend on the machine and on whatever else it runs; each",
    "figure sits next to a bare Node `http` server measured in the same run, with the same load generator, on the same machine.",
    "",
    "## Last run",
    "",
    `- Command: \`${r.command}\``,
    `- Date: ${m.date}; ${r.seconds} s measured per load run after ${r.warmupSeconds} s of warm-up; whole run ${int(r.totalSeconds)} s`,
    `- Machine: nproc ${m.cpus} (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, SQLite ${m.sqlite}, PostgreSQL ${m.postgres ?? "not used"}`,
    `- Load average at the start: ${m.loadAverage.map((n) => n.toFixed(2)).join(", ")}`,
    "",
    `## Channel messages sent per second (POST /messages, ${r.sends.find(measured)?.subscribers ?? "100"} subscribers, ${r.baselineBefore.post.concurrency} concurrent senders)`,
    "",
    ...sendTable(r),
    "",
    "## GET /messages with a search narrow (anchor=newest, num_before=50)",
    "",
    ...searchTables(r),
    "",
    "## User groups: listing them all, and a can_manage_group check through nested subgroups",
    "",
    ...groupsTable(r),
    "",
    "## Presence: one ping or poll per user, paced over the window (POST /users/me/presence)",
    "",
    ...presenceTable(r),
    "",
    "## Phone notifications: a channel send with push-registered subscribers and a bot mention",
    "",
    ...pushTable(r.push),
    "",
    ...(r.email.length > 0 ? [`## Missed-message emails: a channel send to ${int(r.email.find(measured)?.subscribers ?? 1000)} subscribers, everyone away with email notifications on`, "", ...emailTable(r.email), ""] : []),
    ...(r.reads.length > 0 ? ["## POST /register and GET /messages: PostgreSQL against SQLite (issue 15: within 1.5x)", "", ...readsTables(r.reads, r.readsBaseline), ""] : []),
    ...(r.cluster.length > 0 ? ["## Several processes: PostgreSQL and Redis behind nginx, one process and three (issue 15: CPU per send within 1.25x)", "", ...clusterTable(r.cluster), ""] : []),
    ...(r.fanout.some((f) => !("reason" in f) && f.delivery) || r.fanout.some((f) => "reason" in f) || r.cluster.length > 0
      ? ["## Event delivery: one send to N long-polling queues, against the bare long-poll server (issue 15: within 1.5x)", "", ...fanoutTable([...r.fanout, ...clusterFanout(r)]), ""]
      : []),
    ...(r.fanout.length > 0 ? ["## Memory: RSS of the server process holding event queues (issue 15: under 300 MB with 10,000 idle queues)", "", ...memoryTable(r.fanout), ""] : []),
    "## The web app: bundle size and first load",
    "",
    ...webAppTable(r.webapp),
    "",
    "## The bare server (the ceiling)",
    "",
    ...baselineTable(r),
    "",
    "## Interpretation",
    "",
    ...interpretation(r),
    "",
  ].join("\n");
}

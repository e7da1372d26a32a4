/** The cluster table (bench/scenario-cluster.ts) of the benchmark report: sends through nginx with one process, as many as cores and three, and the CPU per send of every part. */
import { PARTS, totalCpu, type Part, type PartCpu } from "./part-cpu.ts";
import type { ClusterResult, ClusterSends } from "./scenario-cluster.ts";
import type { BareLayout } from "./cluster-bare.ts";

type NotMeasured = { store: string; reason: string };

/** Issue 15's target: the CPU per send with three processes at most 1.25x one's. */
export const CLUSTER_TARGETS = { cpuRatio: 1.25 };

const PART_NAMES: Record<Part, string> = { parley: "Parley", postgres: "PostgreSQL", redis: "Redis", nginx: "nginx" };
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const cpuMs = (n: number | undefined) => (n === undefined ? "n/a" : `${n.toFixed(3)} ms`);

function measured(r: ClusterResult | NotMeasured): r is ClusterResult {
  return !("reason" in r);
}

/** The larger layout's CPU per request over the one-process layout's, or null when either is missing. */
function overOne(one: number | null, many: number | null): number | null {
  return one === null || many === null || one <= 0 ? null : many / one;
}

const sendsTotal = (s: ClusterSends | undefined) => (s?.cpuMsPerSend ? totalCpu(s.cpuMsPerSend) : null);

/** The most processes among `layouts`. */
const largest = (layouts: readonly { processes: number }[]) => Math.max(...layouts.map((l) => l.processes));

/** The layouts' sends under the scenario's load (settings.senders), one per layout. */
const underLoad = (r: ClusterResult) => r.sends.filter((s) => s.senders === r.senders);

/** Whether `s` is the largest layout's run with as many senders per process as the single process had. */
const atPerProcessLoad = (r: ClusterResult, s: ClusterSends) => s.senders > r.senders;

/** That run, if measured. */
const perProcessLoad = (r: ClusterResult) => r.sends.find((s) => atPerProcessLoad(r, s));

/** Total CPU per send of `sends` (by default the largest layout's under the scenario's load) over the one-process layout's, or null. */
export function clusterCpuRatio(r: ClusterResult, sends = underLoad(r).find((s) => s.processes === largest(r.sends))): number | null {
  return overOne(sendsTotal(underLoad(r).find((s) => s.processes === 1)), sendsTotal(sends));
}

/** The layout between one process and the largest (as many processes as cores), if measured. */
function coresLayout<T extends { processes: number }>(layouts: readonly T[]): T | undefined {
  const most = largest(layouts);
  return layouts.find((l) => l.processes > 1 && l.processes < most);
}

function row(r: ClusterResult, s: ClusterSends, ratio: string): string {
  const l = s.load;
  const cpu: Partial<PartCpu> = s.cpuMsPerSend ?? {};
  const parts = PARTS.map((part) => cpuMs(cpu[part])).join(" | ");
  const total = s.cpuMsPerSend ? `**${cpuMs(totalCpu(s.cpuMsPerSend))}**` : "n/a";
  const scaled = atPerProcessLoad(r, s) ? `, ${s.senders} senders (${r.senders} per process, as the one process had)` : "";
  return `| PostgreSQL + Redis, ${s.processes} process${s.processes === 1 ? "" : "es"} behind nginx${scaled} | **${int(l.rps)}** | ${ms(l.p50Ms)} ms | ${ms(l.p99Ms)} ms | ${l.errors} | ${parts} | ${total} | ${ratio} |`;
}

/** The bare server's CPU per request (its processes and nginx), or null. */
function bareTotal(b: BareLayout | undefined): number | null {
  return b?.cpuMsPerRequest ? b.cpuMsPerRequest.server + b.cpuMsPerRequest.nginx : null;
}

/** The bare server's CPU per request with `processes` (by default the most) over one's, or null. */
export function bareCpuRatio(r: ClusterResult, processes = largest(r.bare)): number | null {
  return overOne(bareTotal(r.bare.find((b) => b.processes === 1)), bareTotal(r.bare.find((b) => b.processes === processes)));
}

function bareRow(b: BareLayout, ratio: string): string {
  const l = b.load;
  const cpu = b.cpuMsPerRequest;
  const total = bareTotal(b);
  const cells = [cpuMs(cpu?.server), "none", "none", cpuMs(cpu?.nginx)].join(" | ");
  return `| bare \`http\` server (the ceiling), ${b.processes} process${b.processes === 1 ? "" : "es"} behind nginx | ${int(l.rps)} | ${ms(l.p50Ms)} ms | ${ms(l.p99Ms)} ms | ${l.errors} | ${cells} | ${total === null ? "n/a" : cpuMs(total)} | ${ratio} |`;
}

/** The sends table of the cluster scenario, one row per layout, and the bare server's below. */
export function clusterTable(results: readonly (ClusterResult | NotMeasured)[]): string[] {
  const lines = [
    "The send scenario's load sent through nginx (deploy/nginx.conf, a worker per core) to Parley processes sharing one PostgreSQL database and Redis: one process, then as many as this machine has cores (when fewer than three), then three; " +
      "then the three with three times the senders, so that each process serves as many as the single one did (with as many cores as processes, a team that needs three processes has about three times the senders; fewer per process make smaller group commits). " +
      "CPU per send: user + system CPU time over the measured run (/proc, 10 ms ticks) of each part divided by the answered sends: every Parley process; PostgreSQL's postmaster, background processes and the backends of this database " +
      "(other databases' left out); the whole redis-server; nginx's master and workers. Each layout had an unrecorded warm-up run first, as many times longer as it has processes (each process serves as many warm-up sends as the single one did). " +
      "The bare `http` server then answered the same load behind the same nginx configuration, with as many processes as each layout (its CPU: the bare processes and nginx): " +
      "what spreading one load over more processes than this machine has cores costs before any server work. " +
      "In the event delivery table, the three processes' row counts as server CPU every Parley process and nginx, and its second ceiling is the bare long-poll server as the same layout: three processes behind the same nginx, " +
      "the send given to each of them at once (Parley's processes pass it on through Redis). Both had two unrecorded sends first: each process compiles its own delivery path.",
    "",
    `| layout | sends/s | p50 | p99 | errors | ${PARTS.map((p) => `${PART_NAMES[p]} CPU per send`).join(" | ")} | total CPU per send | total over one process's (target at most ${CLUSTER_TARGETS.cpuRatio}) |`,
    `| --- | ---: | ---: | ---: | ---: | ${PARTS.map(() => "---:").join(" | ")} | ---: | ---: |`,
  ];
  for (const r of results) {
    if (!measured(r)) {
      lines.push(`| PostgreSQL + Redis behind nginx | not measured: ${r.reason} |${" |".repeat(PARTS.length + 5)}`);
      continue;
    }
    const middle = coresLayout(r.sends)?.processes;
    for (const s of r.sends) {
      const ratio = clusterCpuRatio(r, s);
      const verdict = s.processes === middle ? "as many processes as cores" : ratio !== null && ratio <= CLUSTER_TARGETS.cpuRatio ? "met" : "NOT met";
      lines.push(row(r, s, s.processes === 1 ? "1" : ratio === null ? "n/a" : `**${ratio.toFixed(2)}** (${verdict})`));
    }
    for (const b of r.bare) {
      const bare = bareCpuRatio(r, b.processes);
      lines.push(bareRow(b, b.processes === 1 ? "1" : bare === null ? "n/a" : bare.toFixed(2)));
    }
  }
  return lines;
}

/** Interpretation lines: the CPU ratio, and how the fan-out's queues fell on the processes. */
export function clusterInterpretation(results: readonly (ClusterResult | NotMeasured)[]): string[] {
  const out: string[] = [];
  for (const r of results.filter(measured)) {
    const ratio = clusterCpuRatio(r);
    const one = underLoad(r).find((s) => s.processes === 1);
    const three = underLoad(r).find((s) => s.processes === largest(r.sends));
    if (one && three && ratio !== null) {
      out.push(
        `- Three Parley processes behind nginx sent ${int(three.load.rps)} messages/s against one process's ${int(one.load.rps)}/s on this machine; ` +
          `the whole layout's CPU per send (Parley, PostgreSQL, Redis, nginx) was ${ratio.toFixed(2)}x one process's (target at most ${CLUSTER_TARGETS.cpuRatio}: ${ratio <= CLUSTER_TARGETS.cpuRatio ? "met" : "NOT met"}), ` +
          "so with as many cores as processes the throughput would grow about by the processes over that ratio.",
      );
      const bare = bareCpuRatio(r);
      if (bare !== null) {
        out.push(
          `- The bare \`http\` server behind the same nginx: ${bare.toFixed(2)}x the CPU per request with three processes as with one (${int(r.bare[r.bare.length - 1]?.load.rps ?? 0)} against ${int(r.bare[0]?.load.rps ?? 0)} req/s); ` +
            `Parley's ratio is ${(ratio / bare).toFixed(2)}x the bare server's.`,
        );
      }
      const nginxOne = one.cpuMsPerSend?.nginx;
      const nginxThree = three.cpuMsPerSend?.nginx;
      if (nginxOne && nginxThree) {
        out.push(
          `- nginx passes on the same requests and answers in every layout, yet spent ${cpuMs(nginxThree)} per send with three processes against ${cpuMs(nginxOne)} with one (${(nginxThree / nginxOne).toFixed(2)}x): ` +
            "what sharing this machine's cores among more busy processes than it has charges for the same work; every part pays it.",
        );
      }
      const scaled = perProcessLoad(r);
      const scaledRatio = scaled ? clusterCpuRatio(r, scaled) : null;
      if (scaled && scaledRatio !== null) {
        out.push(
          `- With ${scaled.senders} senders, as many per process as the one process had, the three processes sent ${int(scaled.load.rps)} messages/s at ${scaledRatio.toFixed(2)}x one process's CPU per send ` +
            `(target at most ${CLUSTER_TARGETS.cpuRatio}: ${scaledRatio <= CLUSTER_TARGETS.cpuRatio ? "met" : "NOT met"}): the cost of the layout itself, without the smaller group commits of a load split three ways.`,
        );
      }
      const middle = coresLayout(underLoad(r));
      const middleRatio = middle ? clusterCpuRatio(r, middle) : null;
      if (middle && middleRatio !== null) {
        const bareMiddle = bareCpuRatio(r, middle.processes);
        out.push(
          `- With as many processes as this machine has cores (${middle.processes}), Parley sent ${int(middle.load.rps)} messages/s at ${middleRatio.toFixed(2)}x one process's CPU per send` +
            `${bareMiddle === null ? "" : ` (the bare server: ${bareMiddle.toFixed(2)}x)`}: the part of the three-process ratio that is the design's rather than the third process sharing two cores.`,
        );
      }
    }
    for (const s of r.spread) out.push(`- ${int(s.queues)} queues registered through nginx fell ${s.perProcess.map(int).join(" / ")} on the ${s.perProcess.length} processes.`);
  }
  return out;
}

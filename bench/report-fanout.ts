/** The fan-out and memory tables (bench/scenario-fanout.ts) of the benchmark report, with the bare long-poll server beside them. */
import type { DeliveryRound } from "./poll-set.ts";
import type { Delivery, FanoutResult, FanoutSize } from "./scenario-fanout.ts";

type NotMeasured = { store: string; reason: string };

/** Issue 15's targets: delivery within 1.5x of the bare long-poll server; RSS with 10,000 idle queues under 300 MB. */
export const FANOUT_TARGETS = { deliveryRatio: 1.5, rssQueues: 10_000, rssBytes: 300 * 1_000_000 };

const STORE_NAMES: Record<string, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const mb = (bytes: number | null) => (bytes === null ? "n/a" : `${(bytes / 1_000_000).toFixed(0)} MB`);

/** A table's rows: `row` for each size of each measured store, one "not measured" row (of `columns` cells) for the others. */
function storeRows(results: readonly (FanoutResult | NotMeasured)[], columns: number, row: (r: FanoutResult, size: FanoutResult["sizes"][number], name: string) => string | null): string[] {
  const lines: string[] = [];
  for (const r of results) {
    const name = (measured(r) ? r.label : undefined) ?? STORE_NAMES[r.store] ?? r.store;
    if (!measured(r)) {
      lines.push(`| ${name} | not measured: ${r.reason} |${" |".repeat(columns - 2)}`);
      continue;
    }
    for (const size of r.sizes) {
      const line = row(r, size, name);
      if (line !== null) lines.push(line);
    }
  }
  return lines;
}

function measured(r: FanoutResult | NotMeasured): r is FanoutResult {
  return !("reason" in r);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The p50 over the sends of one figure of a round. */
const p50 = (d: Delivery, pick: (r: DeliveryRound) => number) => median(d.rounds.map(pick));

function spread(d: Delivery): string {
  const all = d.rounds.map((r) => r.allMs);
  return `**${ms(p50(d, (r) => r.allMs))} ms** (${ms(Math.min(...all))}-${ms(Math.max(...all))})`;
}

/** The median server CPU of the sends, in ms, or null where /proc is missing. */
function medianCpuMs(d: Delivery): number | null {
  const values = d.rounds.map((r) => r.serverCpuMs).filter((v): v is number => v !== null);
  return values.length === 0 ? null : median(values);
}

/** Server CPU per delivered poll, in µs (the send's own cost included, spread over the queues). */
function cpuPerQueue(d: Delivery, queues: number): string {
  const cpu = medianCpuMs(d);
  return cpu === null ? "n/a" : `${int((cpu * 1000) / queues)} µs`;
}

/** Parley's server CPU per send over the bare server's: steadier than the times when other programs load the machine. */
export function cpuRatio(size: FanoutSize): number | null {
  if (!size.parley || !size.bare) return null;
  const parley = medianCpuMs(size.parley);
  const bare = medianCpuMs(size.bare);
  return parley === null || bare === null || bare === 0 ? null : parley / bare;
}

/** Parley's p50 over the bare server's, or null. */
export function deliveryRatio(size: FanoutSize): number | null {
  if (!size.parley || !size.bare) return null;
  const bare = p50(size.bare, (r) => r.allMs);
  return bare > 0 ? p50(size.parley, (r) => r.allMs) / bare : null;
}

/** One row per store and queue count: Parley's delivery times next to the bare long-poll server's. */
export function fanoutTable(results: readonly (FanoutResult | NotMeasured)[]): string[] {
  const first = results.find(measured);
  const lines = [
    `A channel message to one channel whose subscribers hold every queue (${first ? `${int(first.users)} users, ` : ""}several queues each past that), each queue with a long poll open on a connection of its own; ` +
      `timed from the start of the send until every poll has returned it, ${first?.rounds ?? "a few"} sends per row (p50, min-max); polls renewed and the server idle between sends. ` +
      "Server CPU per queue is the server's CPU time over the send divided by the queues (read from /proc in 10 ms ticks); it moves less than the times when other programs load the machine.",
    "",
    "| store | queues | registering them (event_types message) | every poll answered | first / half of the polls answered | the send answered | server CPU per queue | bare long-poll server (same run): every poll answered | bare: CPU per queue | Parley / bare: time (CPU) | time within 1.5x |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  lines.push(
    ...storeRows(results, 11, (_r, size, name) => {
      if (!size.parley) return null;
      const ratio = deliveryRatio(size);
      const cpu = cpuRatio(size);
      const bare = size.bare;
      return (
        `| ${name} | ${int(size.queues)} | ${size.registerSeconds.toFixed(1)} s (${int(size.queues / size.registerSeconds)}/s) | ${spread(size.parley)} | ` +
        `${ms(p50(size.parley, (x) => x.firstMs))} / ${ms(p50(size.parley, (x) => x.medianMs))} ms | ${ms(p50(size.parley, (x) => x.sendMs))} ms | ${cpuPerQueue(size.parley, size.queues)} | ` +
        `${bare ? spread(bare) : "n/a"} | ${bare ? cpuPerQueue(bare, size.queues) : "n/a"} | **${ratio === null ? "n/a" : ratio.toFixed(2)}** (${cpu === null ? "n/a" : cpu.toFixed(2)}) | ${ratio === null ? "" : ratio <= FANOUT_TARGETS.deliveryRatio ? "met" : "NOT met"}${nginxCell(size)} |`
      );
    }),
  );
  return lines;
}

/** One row per store and queue count: the server's RSS started, with idle queues, with a poll on each, and the bare server's. */
export function memoryTable(results: readonly (FanoutResult | NotMeasured)[]): string[] {
  const lines = [
    "RSS (VmRSS of the server process, all threads) after the server went idle. Queues registered with `event_types=[\"message\"]`; \"idle\": no poll open.",
    "",
    "| store | started (one channel, no queue) | queues | with the queues idle | per idle queue | with a long poll on each | bare long-poll server holding as many polls | under 300 MB at 10,000 |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  lines.push(
    ...storeRows(results, 8, (r, size, name) => {
      const perQueue = size.rssIdle === null || r.rssStarted === null ? "n/a" : `${((size.rssIdle - r.rssStarted) / size.queues / 1024).toFixed(1)} KiB`;
      const verdict = size.queues !== FANOUT_TARGETS.rssQueues || size.rssIdle === null ? "" : size.rssIdle < FANOUT_TARGETS.rssBytes ? "met" : "NOT met";
      return `| ${name} | ${mb(r.rssStarted)} | ${int(size.queues)} | **${mb(size.rssIdle)}** | ${perQueue} | ${mb(size.rssPolling)} | ${mb(size.bareRss)} | ${verdict} |`;
    }),
  );
  return lines;
}

/** Parley's p50 over the bare server's as the same layout behind the same nginx (the cluster layout's second ceiling), or null. */
function nginxRatio(size: FanoutSize): number | null {
  if (!size.bareBehindNginx || !size.parley) return null;
  const time = p50(size.bareBehindNginx, (x) => x.allMs);
  return time > 0 ? p50(size.parley, (x) => x.allMs) / time : null;
}

/** How the cluster layout's second ceiling is named: the bare server as the same layout. */
function sameLayout(size: FanoutSize): string {
  return `the bare server as ${size.bareProcesses ?? 1} process${(size.bareProcesses ?? 1) === 1 ? "" : "es"} behind the same nginx`;
}

/** The verdict cell's addition for the cluster layout: the same target against the bare server as the same layout. */
function nginxCell(size: FanoutSize): string {
  const ratio = nginxRatio(size);
  return ratio === null ? "" : `; against ${sameLayout(size)}: ${ratio.toFixed(2)}x, ${ratio <= FANOUT_TARGETS.deliveryRatio ? "met" : "NOT met"}`;
}

/** The cluster layout's second ceiling: the bare server as the same layout, and Parley's time over it. */
function behindNginx(size: FanoutSize): string {
  if (size.bareBehindNginx === undefined || !size.parley) return "";
  const name = sameLayout(size);
  if (size.bareBehindNginx === null) return ` ${name[0].toUpperCase()}${name.slice(1)}: not measured (see the run's log).`;
  const time = p50(size.bareBehindNginx, (x) => x.allMs);
  const ratio = nginxRatio(size);
  return ` ${name[0].toUpperCase()}${name.slice(1)}: ${ms(time)} ms${ratio === null ? "" : ` (Parley ${ratio.toFixed(2)}x that; target within ${FANOUT_TARGETS.deliveryRatio}x: ${ratio <= FANOUT_TARGETS.deliveryRatio ? "met" : "NOT met"})`}.`;
}

/** Interpretation lines for delivery and memory. */
export function fanoutInterpretation(results: readonly (FanoutResult | NotMeasured)[]): string[] {
  const out: string[] = [];
  for (const r of results.filter(measured)) {
    const name = r.label ?? STORE_NAMES[r.store] ?? r.store;
    for (const size of r.sizes) {
      const ratio = deliveryRatio(size);
      const cpu = cpuRatio(size);
      if (size.parley && size.bare && ratio !== null) {
        out.push(
          `- ${name}, ${int(size.queues)} long-polling queues: every poll had the message ${ms(p50(size.parley, (x) => x.allMs))} ms after the send started, ` +
            `against ${ms(p50(size.bare, (x) => x.allMs))} ms for the bare long-poll server (${ratio.toFixed(2)}x; target within ${FANOUT_TARGETS.deliveryRatio}x: ${ratio <= FANOUT_TARGETS.deliveryRatio ? "met" : "NOT met"})` +
            (cpu === null ? "." : `; the server's CPU per send was ${cpu.toFixed(2)}x the bare server's.`) +
            behindNginx(size),
        );
      }
      if (size.queues === FANOUT_TARGETS.rssQueues && size.rssIdle !== null) {
        out.push(`- ${name}: RSS ${mb(size.rssIdle)} with ${int(size.queues)} idle queues (target under 300 MB: ${size.rssIdle < FANOUT_TARGETS.rssBytes ? "met" : "NOT met"}).`);
      }
    }
  }
  return out;
}

/** The history scenario's report (bench/scenario-history.ts), as markdown for docs/benchmarks.md. */
import type { HistoryResult } from "./scenario-history.ts";

/** Per-request cost at ten times the data may be at most this many times the small store's, for the bounded requests. */
export const HISTORY_BOUND = 1.5;

const n = (x: number) => x.toLocaleString("en-US");

/** The bounded request kinds whose server CPU per request grew past HISTORY_BOUND. */
export function historyFailures(r: HistoryResult): string[] {
  const failures: string[] = [];
  for (const kind of r.kinds) {
    const a = r.small.figures.get(kind.name);
    const b = r.large.figures.get(kind.name);
    if (!a || !b) continue;
    if (a.failed + b.failed > 0) failures.push(`${kind.name}: ${a.failed + b.failed} requests failed (${a.firstFailure ?? b.firstFailure})`);
    if (kind.bounded && b.cpuMs > HISTORY_BOUND * a.cpuMs) failures.push(`${kind.name}: server CPU per request ${b.cpuMs.toFixed(2)} ms at ${n(r.large.messages)} messages, ${(b.cpuMs / a.cpuMs).toFixed(2)}x the ${a.cpuMs.toFixed(2)} ms at ${n(r.small.messages)}`);
  }
  return failures;
}

export function renderHistory(r: HistoryResult): string {
  const s = r.settings;
  const failures = historyFailures(r);
  const store = (x: HistoryResult["small"]) => `${n(x.messages)} messages, ${n(x.flagRows)} flag rows (${n(x.unreadRows)} unread)`;
  const lines = [
    `### Cost with the data: each request on a store with ${n(r.small.messages)} messages and on one with ${n(r.large.messages)} (SQLite)`,
    "",
    `Small store: ${store(r.small)}. Large store: ${store(r.large)}. Each request kind sent ${s.requests} times (after 10 unmeasured), one at a time at ${s.rate} a second, as 5 readers in turn, who have read all but their newest 200 messages on both stores. Server CPU per request: the server process's CPU time (/proc, 10 ms ticks) over the kind's requests, divided by them.`,
    "",
    `| request | bounded | CPU per request, small | CPU per request, large | CPU ratio | p50, small | p50, large | p50 ratio | answer, small / large | within ${HISTORY_BOUND}x |`,
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const kind of r.kinds) {
    const a = r.small.figures.get(kind.name);
    const b = r.large.figures.get(kind.name);
    if (!a || !b) continue;
    const ratio = a.cpuMs > 0 ? b.cpuMs / a.cpuMs : NaN;
    const verdict = kind.bounded ? (ratio <= HISTORY_BOUND ? "met" : "**NOT met**") : "grows with its answer";
    lines.push(`| ${kind.name} | ${kind.bounded ? "yes" : "no"} | ${a.cpuMs.toFixed(2)} ms | ${b.cpuMs.toFixed(2)} ms | **${ratio.toFixed(2)}** | ${a.p50Ms.toFixed(2)} ms | ${b.p50Ms.toFixed(2)} ms | ${(b.p50Ms / a.p50Ms).toFixed(2)} | ${n(a.answerBytes)} / ${n(b.answerBytes)} B | ${verdict} |`);
  }
  lines.push("", ...r.kinds.filter((k) => !k.bounded).map((k) => `- ${k.name} is not bounded: ${k.why ?? ""}.`));
  lines.push("", failures.length === 0 ? "Verdict: **passed**." : `Verdict: **FAILED**: ${failures.join("; ")}.`);
  return lines.join("\n");
}

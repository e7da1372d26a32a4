/** The soak scenario's report (bench/scenario-soak.ts), as markdown for docs/benchmarks.md. */
import type { SoakResult } from "./scenario-soak.ts";

const MIB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MIB).toFixed(1);

export function renderSoak(r: SoakResult): string {
  const s = r.settings;
  const allowed = r.bound.reduce((n, t) => n + t.bytes, 0);
  const growth = r.end.rssBytes - r.base.rssBytes;
  const seconds = r.end.minute * 60;
  const requests = r.end.requests;
  const cpuMs = ((r.end.cpuSeconds - (r.samples[0]?.cpuSeconds ?? 0)) * 1000) / Math.max(1, requests);
  const lines = [
    `### Soak: ${s.users} users with a long-polled queue each, ${s.rate} mixed requests a second, ${s.minutes} minutes on SQLite`,
    "",
    `${requests.toLocaleString("en-US")} requests in ${Math.round(seconds)} s (${(requests / seconds).toFixed(1)}/s), ${r.counts.messagesSent.toLocaleString("en-US")} messages stored, ${r.counts.deliveriesExpected.toLocaleString("en-US")} deliveries owed and ${r.counts.deliveriesSeen.toLocaleString("en-US")} seen (missing ${r.missing}, unexpected or doubled ${r.unexpected}), ${r.counts.serverErrors} 5xx, ${r.counts.otherFailures} other failures${r.counts.firstFailure ? ` (first: ${r.counts.firstFailure})` : ""}, ${r.counts.queueFailures} queue faults, ${r.counts.pollRetries} polls asked again after a network error${r.counts.firstPollRetry ? ` (first: ${r.counts.firstPollRetry})` : ""}, ${r.counts.skipped} requests late; server CPU ${cpuMs.toFixed(2)} ms per request.`,
    "",
    "| request | answered | failed | mean time |",
    "| --- | ---: | ---: | ---: |",
    ...[...r.counts.byKind].map(([kind, k]) => `| ${kind} | ${k.ok.toLocaleString("en-US")} | ${k.failed} | ${(k.totalMs / Math.max(1, k.ok + k.failed)).toFixed(1)} ms |`),
    "",
    "RSS of the server process (VmRSS; anonymous memory, and file-backed plus shared, from /proc/<pid>/status) and the database file with its WAL:",
    "",
    "| minute | RSS | anonymous | file + shared | database + WAL | requests so far |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ...everyMinute(r).map((x) => `| ${x.minute.toFixed(1)}${x === r.base ? " (base)" : ""} | ${mib(x.rssBytes)} MiB | ${mib(x.anonBytes)} MiB | ${mib(x.fileBytes)} MiB | ${mib(x.dbBytes)} MiB | ${x.requests.toLocaleString("en-US")} |`),
    "",
    `The bound on growth after the base sample (minute ${r.base.minute.toFixed(1)}):`,
    "",
    "| term | bytes | from |",
    "| --- | ---: | --- |",
    ...r.bound.map((t) => `| ${t.name} | ${mib(t.bytes)} MiB | ${t.how} |`),
    `| **sum** | **${mib(allowed)} MiB** | |`,
    "",
    `RSS grew **${mib(growth)} MiB** from minute ${r.base.minute.toFixed(1)} (${mib(r.base.rssBytes)} MiB) to the end (${mib(r.end.rssBytes)} MiB): ${growth <= allowed ? "within the bound" : "NOT within the bound"}.`,
    "",
    r.failures.length === 0 ? "Verdict: **passed**." : `Verdict: **FAILED**: ${r.failures.join("; ")}.`,
  ];
  return lines.join("\n");
}

/** The samples at whole minutes (the nearest one each), the base and the last. */
function everyMinute(r: SoakResult): SoakResult["samples"] {
  const picked = new Set<SoakResult["samples"][number]>();
  let nextMinute = 0;
  for (const x of r.samples) {
    if (x.minute >= nextMinute - 1e-6) {
      picked.add(x);
      nextMinute = Math.floor(x.minute + 1e-6) + 1;
    }
  }
  picked.add(r.base);
  picked.add(r.end);
  return [...picked].sort((a, b) => a.minute - b.minute);
}

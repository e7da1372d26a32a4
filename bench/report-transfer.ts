/** The transfer scenario's report (bench/scenario-transfer.ts), as markdown for docs/benchmarks.md. */
import type { TransferResult, TransferRun } from "./scenario-transfer.ts";

/** The larger run's peak memory may be at most this many times the smaller's: both stream. */
export const TRANSFER_MEMORY_BOUND = 1.5;

const n = (x: number) => Math.round(x).toLocaleString("en-US");
const rate = (messages: number, seconds: number) => n(messages / seconds);

/** What failed: a store that lost messages, or memory that grew with the history. */
export function transferFailures(r: TransferResult): string[] {
  const failures: string[] = [];
  for (const { store, small, large } of r.runs) {
    for (const run of [small, large]) {
      if (run.importedMessages !== run.messages) failures.push(`${store}: ${n(run.messages)} messages exported, ${n(run.importedMessages)} imported`);
    }
    for (const [what, a, b] of [["export", small.exported.peakMb, large.exported.peakMb], ["import", small.imported.peakMb, large.imported.peakMb]] as const) {
      if (b > TRANSFER_MEMORY_BOUND * a) failures.push(`${store}: the ${what}'s peak memory grew from ${a.toFixed(0)} MB to ${b.toFixed(0)} MB with five times the messages`);
    }
  }
  return failures;
}

function row(store: string, run: TransferRun): string {
  const exportRate = run.messages / run.exported.seconds;
  const importRate = run.messages / run.imported.seconds;
  const writeCeiling = run.messages / run.writeCeilingSeconds;
  const readCeiling = run.messages / run.readCeilingSeconds;
  return [
    store,
    n(run.messages),
    n(run.flagRows),
    `${run.uploadMb.toFixed(0)} MB`,
    `${run.exported.seconds.toFixed(1)} s`,
    rate(run.messages, run.exported.seconds),
    n(writeCeiling),
    `**${(exportRate / writeCeiling).toFixed(3)}**`,
    `${run.exported.peakMb.toFixed(0)} MB`,
    `${run.exportMb.toFixed(0)} MB`,
    `${run.imported.seconds.toFixed(1)} s`,
    rate(run.messages, run.imported.seconds),
    n(readCeiling),
    `**${(importRate / readCeiling).toFixed(3)}**`,
    `${run.imported.peakMb.toFixed(0)} MB`,
  ].join(" | ");
}

export function renderTransfer(r: TransferResult): string {
  const failures = transferFailures(r);
  const lines = [
    `### Export and import: an organization of ${n(r.settings.messages)} messages with ${n(r.settings.uploads)} uploads of ${n(r.settings.uploadBytes / 1024)} KB`,
    "",
    "Each command runs as its own process, as an operator runs it (its start included); peak memory is the process's maxRSS, with SQLITE_CACHE_MB=${r.settings.sqliteCacheMb} (the page cache of each of the two SQLite connections, a bound of its own, full at both sizes). Export: `parley export --full`; import: `parley import-zulip` of that file into an empty store. Ceilings, on the same export in the bench's process: writing it (JSON.stringify and gzip of every messages file) and reading it (gunzip, untar and JSON.parse of every messages file). Ratio: the command's messages per second over its ceiling's.",
    "",
    "| store | messages | flag rows | uploads | export | export msg/s | write ceiling msg/s | export ratio | export peak | export file | import | import msg/s | read ceiling msg/s | import ratio | import peak |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { store, small, large } of r.runs) lines.push(`| ${row(store, small)} |`, `| ${row(store, large)} |`);
  lines.push("");
  for (const { store, small, large } of r.runs) {
    lines.push(`- ${store}: peak memory with five times the messages: export ${(large.exported.peakMb / small.exported.peakMb).toFixed(2)}x, import ${(large.imported.peakMb / small.imported.peakMb).toFixed(2)}x (bound ${TRANSFER_MEMORY_BOUND}x).`);
  }
  lines.push("", failures.length === 0 ? "Verdict: **passed**." : `Verdict: **FAILED**: ${failures.join("; ")}.`);
  return lines.join("\n");
}

/** The email scenario's table (bench/scenario-email.ts) in the benchmark report. */
import { int, pass, STORE_NAMES, type NotMeasured } from "./report-push.ts";
import type { EmailResult } from "./scenario-email.ts";

/** One row per store: the sender's latency without and with email, then the decisions and the emails. */
export function emailTable(results: readonly (EmailResult | NotMeasured)[]): string[] {
  const lines = [
    "Paced one at a time at 10 a second over five topics. Every subscriber is away (no event queue, no presence) with email notifications on for every channel; without email the server has no `SMTP_URL`, with email it sends through a counting SMTP server in a process of its own, and each message joins every subscriber's batch but its sender's (batches come due after the pass: one email per subscriber and topic, composed into the outbox, which sends them at its own pace).",
    "",
    "| store | subscribers | sender p50 / p99 without email | sender p50 / p99 with email | p50 ratio (with / without) | decisions done after the last send | messages batched | emails composed (expected) | from the first batch due to the last composed | emails composed per second |",
    "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    if ("reason" in r) {
      lines.push(`| ${STORE_NAMES[r.store] ?? r.store} | not measured: ${r.reason} | | | | | | | | |`);
      continue;
    }
    const ratio = r.withoutEmail.p50Ms > 0 ? (r.withEmail.p50Ms / r.withoutEmail.p50Ms).toFixed(2) : "n/a";
    lines.push(
      `| ${STORE_NAMES[r.store]} | ${int(r.subscribers)} | ${pass(r.withoutEmail)} | ${pass(r.withEmail)} | ${ratio} | ${r.decisionLagSeconds.toFixed(1)} s | ${int(r.batched)} | ${int(r.emails)} (${int(r.expectedEmails)}) | ${r.drainSeconds.toFixed(1)} s | ${int(r.emailsPerSecond)} |`,
    );
  }
  return lines;
}

/** The email scenario's table (bench/scenario-email.ts) in the benchmark report. */
import { int, pass, STORE_NAMES, type NotMeasured } from "./report-push.ts";
import type { EmailResult } from "./scenario-email.ts";

/** One row per store: the sender's latency without and with email, then the decisions and the emails. */
export function emailTable(results: readonly (EmailResult | NotMeasured)[]): string[] {
  const lines = [
    "Two servers on two stores with the same org, sent to in turn, each 10 messages a second over five topics, one at a time. Every subscriber is away (no event queue, no presence) with email notifications on for every channel; one server has no `SMTP_URL`, the other sends through a counting SMTP server in a process of its own, so each message joins every subscriber's batch but its sender's (batches come due after the run: one email per subscriber and topic, composed into the outbox, which sends them at its own pace). CPU per send: each server's over the measured sends, the email server's decisions included.",
    "",
    "| store | subscribers | sender p50 / p99 without email | sender p50 / p99 with email | p50 ratio (with / without) | server CPU per send without / with | decisions done after the last send | messages batched | emails composed (expected) | from the first batch due to the last composed | emails composed per second |",
    "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    if ("reason" in r) {
      lines.push(`| ${STORE_NAMES[r.store] ?? r.store} | not measured: ${r.reason} | | | | | | | | | |`);
      continue;
    }
    const ratio = r.withoutEmail.p50Ms > 0 ? (r.withEmail.p50Ms / r.withoutEmail.p50Ms).toFixed(2) : "n/a";
    lines.push(
      `| ${STORE_NAMES[r.store]} | ${int(r.subscribers)} | ${pass(r.withoutEmail)} | ${pass(r.withEmail)} | ${ratio} | ${r.cpuMsPerSend.without.toFixed(2)} / ${r.cpuMsPerSend.with.toFixed(2)} ms | ${r.decisionLagSeconds.toFixed(1)} s | ${int(r.batched)} | ${int(r.emails)} (${int(r.expectedEmails)}) | ${r.drainSeconds.toFixed(1)} s | ${int(r.emailsPerSecond)} |`,
    );
  }
  return lines;
}

/** The push scenario's table (bench/scenario-push.ts) in the benchmark report. */
import type { PacedPass } from "./paced-sends.ts";
import type { PushResult } from "./scenario-push.ts";

/** A scenario's run that did not happen. */
export type NotMeasured = { store: string; reason: string };

/** Each store as the report names it. */
export const STORE_NAMES: Record<string, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };
/** Whole numbers with thousands separators. */
export const int = (n: number) => Math.round(n).toLocaleString("en-US");
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

/** A paced pass's cell (shared with the email scenario's table): p50 / p99, sends and errors. */
export function pass(p: PacedPass): string {
  return `${ms(p.p50Ms)} / ${ms(p.p99Ms)} ms (${int(p.sends)} sends, ${p.errors} errors)`;
}

/** One row per store: the sender's latency without and with push, and the notifications delivered. */
export function pushTable(results: readonly (PushResult | NotMeasured)[]): string[] {
  const lines = [
    "Each message mentions an outgoing-webhook bot; paced one at a time at 10 a second. With push, every subscriber but the sender has an FCM token and channel push on, so each message notifies all of them through the stand-in relay (in a process of its own).",
    "",
    "| store | subscribers | sender p50 / p99 without push | sender p50 / p99 with push | p50 ratio (with / without) | notifications delivered (expected) | from first send to an empty queue | notifications per second |",
    "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    if ("reason" in r) {
      lines.push(`| ${STORE_NAMES[r.store] ?? r.store} | not measured: ${r.reason} | | | | | | |`);
      continue;
    }
    const ratio = r.withoutPush.p50Ms > 0 ? (r.withPush.p50Ms / r.withoutPush.p50Ms).toFixed(2) : "n/a";
    lines.push(
      `| ${STORE_NAMES[r.store]} | ${int(r.subscribers)} | ${pass(r.withoutPush)} | ${pass(r.withPush)} | ${ratio} | ${int(r.notifications)} (${int(r.expected)}) | ${r.drainSeconds.toFixed(1)} s | ${int(r.notificationsPerSecond)} |`,
    );
  }
  return lines;
}

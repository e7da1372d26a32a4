/** The web app scenario's table (bench/scenario-webapp.ts) in the benchmark report. */
import { FIRST_LOAD_BUDGET_BYTES, WEBAPP_LOADS, type WebAppResult, type Weight } from "./scenario-webapp.ts";

type NotMeasured = { store: string; reason: string };

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const weight = (w: Weight) => `${kb(w.raw)} / ${kb(w.gzip)} / ${kb(w.brotli)}`;

/** One row per run: build time, first-visit bytes, and the median cold load times. */
export function webAppTable(results: readonly (WebAppResult | NotMeasured)[]): string[] {
  const lines = [
    `A first visit downloads index.html, one script and one style sheet (budget: ${kb(FIRST_LOAD_BUDGET_BYTES)} compressed). Loads are cold (a fresh browser profile each, Chromium headless on this machine), timed from navigation until the login form, or until the signed-in feed shows its 100 newest messages; medians of ${WEBAPP_LOADS}. A full POST /register (the owner's, every key) as the server sends it: plain, to a gzip client, to a brotli client.`,
    "",
    "| store | esbuild bundle (cold) | script: raw / gzip / brotli | first visit: raw / gzip / brotli | login page | signed-in feed | full register: raw / gzip / brotli |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    if ("reason" in r) {
      lines.push(`| ${r.store} | not measured: ${r.reason} | | | | | |`);
      continue;
    }
    const signedIn = typeof r.signedInMs === "number" ? `${Math.round(r.signedInMs)} ms` : `not measured: ${r.signedInMs}`;
    lines.push(`| ${r.store} | ${Math.round(r.buildMs)} ms | ${weight(r.script)} | ${weight(r.firstLoad)} | ${Math.round(r.loginPageMs)} ms | ${signedIn} | ${weight(r.register)} |`);
  }
  return lines;
}

/**
 * `npm run bench`: measures the bare `http` server, then the send, search, user-group, presence,
 * missed-message email, push, register and message-list, long-poll fan-out and memory scenarios on each store, several
 * processes behind nginx on PostgreSQL and the web app, then the bare server again; prints the
 * report and rewrites the generated part of docs/benchmarks.md. Scenarios run in groups whose
 * runs set up at once and measure in turn (turns.ts). Everything binds to 127.0.0.1 and every
 * load run is bounded in time (BENCH_SECONDS, default 10; the whole default run takes about
 * twenty minutes). `npm run bench -- --quick` shrinks every run and size (settings.ts) and only
 * prints the report (see docs/benchmarks.md for how long it takes). The long scenarios (soak,
 * history: bench/long.ts) run only when named, `npm run bench -- soak history`, and then alone.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import type { LoadRequest } from "./load.ts";
import { KEEP_MARKER, renderMarkdown, type Baseline, type MachineFacts, type NotMeasured, type RunResults } from "./report.ts";
import type { ReadsBaseline } from "./report-reads.ts";
import { runClusterScenario, type ClusterResult } from "./scenario-cluster.ts";
import { runFanoutScenario, type FanoutResult } from "./scenario-fanout.ts";
import { runGroupsScenario, type GroupsResult } from "./scenario-groups.ts";
import { runPresenceScenario, type PresenceResult } from "./scenario-presence.ts";
import { runPushScenario, type PushResult } from "./scenario-push.ts";
import { runEmailScenario, type EmailResult } from "./scenario-email.ts";
import { messageListRequest, runReadsScenario, type ReadsResult } from "./scenario-reads.ts";
import { runSearchScenario, type SearchResult } from "./scenario-search.ts";
import { runSendScenario, type SendResult } from "./scenario-send.ts";
import { runWebAppScenario, type WebAppResult } from "./scenario-webapp.ts";
import { namedLongScenarios, runLongScenarios } from "./long.ts";
import { loadServer, parleyStarts, ROOT, startBaseline } from "./servers.ts";
import { loadSettings, type BenchSettings } from "./settings.ts";
import { inTurns } from "./turns.ts";
import type { StoreKind } from "../test/helpers/stores.ts";

const DOCS = path.join(ROOT, "docs/benchmarks.md");
const SEND_ROUTE = path.join(ROOT, "src/http/routes/messages-send.ts");
const READ_ROUTE = path.join(ROOT, "src/http/routes/messages-read.ts");
const GROUPS_ROUTE = path.join(ROOT, "src/http/routes/user-groups.ts");
const PRESENCE_ROUTE = path.join(ROOT, "src/http/routes/presence.ts");
const PUSH_WORKER = path.join(ROOT, "src/actions/push/message-notify.ts");
const EMAIL_WORKER = path.join(ROOT, "src/actions/email-notifications/worker.ts");
const WEB_APP = path.join(ROOT, "web/src/main.tsx");
const REGISTER_ACTION = path.join(ROOT, "src/actions/queues/register.ts");
const LONG_POLL = path.join(ROOT, "src/events/long-poll.ts");
const CLUSTER = path.join(ROOT, "deploy/nginx.conf");
const PG_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

// Requests shaped like the scenarios' (same headers and body size), for the bare server.
const BASELINE_POST: LoadRequest = {
  method: "POST",
  path: "/api/v1/messages",
  headers: { authorization: `Basic ${Buffer.from("user1@bench.example.com:0123456789abcdef0123456789abcdef").toString("base64")}`, "content-type": "application/x-www-form-urlencoded", "user-agent": "ParleyBench/1.0" },
  body: "type=stream&to=9&topic=bench+topic+0&content=Project+deploy+server+release+branch+review+budget+meeting+design+client.",
};
const BASELINE_GET: LoadRequest = {
  method: "GET",
  path: `/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow=${encodeURIComponent('[{"operator":"search","operand":"project"}]')}`,
  headers: { authorization: BASELINE_POST.headers?.authorization ?? "", "user-agent": "ParleyBench/1.0" },
};

async function measureBaseline(settings: BenchSettings): Promise<Baseline> {
  const server = await startBaseline();
  try {
    const common = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, expectBody: '"result":"success"' };
    const post = await loadServer(server, { ...common, requests: [BASELINE_POST], concurrency: settings.senders });
    const get = await loadServer(server, { ...common, requests: [BASELINE_GET], concurrency: settings.searchClients });
    return { post, get };
  } finally {
    await server.stop();
  }
}

/** The bare server answering a GET shaped like the message list, with one client and with the read scenarios' clients. */
async function measureReadsBaseline(settings: BenchSettings): Promise<ReadsBaseline> {
  const server = await startBaseline();
  try {
    const requests = [messageListRequest({ id: 2, email: "user1@bench.example.com", apiKey: "0123456789abcdef0123456789abcdef" })];
    const common = { requests, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, expectBody: '"result":"success"' };
    const alone = await loadServer(server, { ...common, concurrency: 1 });
    const loaded = await loadServer(server, { ...common, concurrency: settings.readClients });
    return { alone, loaded };
  } finally {
    await server.stop();
  }
}

async function postgresVersion(settings: BenchSettings): Promise<string | null> {
  if (!settings.stores.includes("postgres")) return null;
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const res = await client.query<{ server_version: string }>("show server_version");
    return res.rows[0]?.server_version ?? null;
  } finally {
    await client.end();
  }
}

async function machineFacts(settings: BenchSettings): Promise<MachineFacts> {
  const memory = new SqliteDatabase(":memory:");
  const sqlite = String(memory.prepare("select sqlite_version() as v").pluck().get());
  memory.close();
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? "unknown CPU",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    sqlite,
    postgres: await postgresVersion(settings),
    loadAverage: os.loadavg(),
  };
}

/** The command that reproduces this run: npm's, with the BENCH_* variables that were set. */
function commandLine(): string {
  const vars = Object.entries(process.env)
    .filter(([k]) => k.startsWith("BENCH_"))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  const npm = process.env.npm_lifecycle_event === "bench";
  const base = npm ? "npm run bench" : "npx tsx bench/run.ts";
  const quick = process.argv.includes("--quick") ? (npm ? " -- --quick" : " --quick") : "";
  return [...vars, base + quick].join(" ");
}

async function attempt<T>(store: string, route: string, label: string, run: () => Promise<T>): Promise<T | NotMeasured> {
  if (!fs.existsSync(route)) return { store, reason: `${path.relative(ROOT, route)} does not exist yet` };
  console.log(`- ${label} on ${store}...`);
  const started = performance.now();
  try {
    const result = await run();
    console.log(`  ${label} on ${store}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  } catch (err) {
    console.error(`  ${label} on ${store} failed: ${String(err)}`);
    return { store, reason: String(err).split("\n")[0].slice(0, 200) };
  }
}

/** A scenario's runs on `stores`, for inTurns(), each putting its result (or why there is none) in `into`, in the stores' order. */
function perStore<T>(stores: readonly StoreKind[], wanted: boolean, into: (T | NotMeasured)[], route: string, label: string, run: (store: StoreKind) => Promise<T>): (() => Promise<void>)[] {
  if (!wanted) return [];
  return stores.map((store, i) => async () => {
    into[i] = await attempt(store, route, label, () => run(store));
  });
}

function writeDocs(markdown: string): void {
  const previous = fs.existsSync(DOCS) ? fs.readFileSync(DOCS, "utf8") : "";
  const at = previous.indexOf(KEEP_MARKER);
  const kept = at >= 0 ? previous.slice(at) : `${KEEP_MARKER}\n`;
  fs.mkdirSync(path.dirname(DOCS), { recursive: true });
  fs.writeFileSync(DOCS, `${markdown}\n${kept}`);
}

async function main(): Promise<void> {
  const settings = loadSettings();
  const started = performance.now();
  if (settings.profileDir) fs.mkdirSync(settings.profileDir, { recursive: true });
  const machine = await machineFacts(settings);
  console.log(`Parley benchmark${settings.quick ? " (quick)" : ""}: nproc ${machine.cpus}, Node ${machine.node}, ${settings.seconds} s per load run`);
  console.log("- bare http server...");
  const baselineBefore = await measureBaseline(settings);
  const wantReads = { register: settings.scenarios.has("register"), messages: settings.scenarios.has("messages") };
  const readsBaseline = wantReads.register || wantReads.messages ? await measureReadsBaseline(settings) : null;
  const want = (name: string) => settings.scenarios.has(name);
  const sends: (SendResult | NotMeasured)[] = [];
  const searches: (SearchResult | NotMeasured)[] = [];
  const groups: (GroupsResult | NotMeasured)[] = [];
  const presence: (PresenceResult | NotMeasured)[] = [];
  const push: (PushResult | NotMeasured)[] = [];
  const email: (EmailResult | NotMeasured)[] = [];
  const reads: (ReadsResult | NotMeasured)[] = [];
  const fanout: (FanoutResult | NotMeasured)[] = [];
  const cluster: (ClusterResult | NotMeasured)[] = [];
  const webapp: (WebAppResult | NotMeasured)[] = [];
  const delivery = want("fanout");
  // Several processes need PostgreSQL: measured when it is among the stores. The web app's
  // weight and load time do not depend on the store: measured on the first one.
  const clusterStores = want("cluster") ? settings.stores.filter((store) => store === "postgres") : [];
  const webStores = want("webapp") ? settings.stores.slice(0, 1) : [];
  // Two or three scenarios per group: their runs set up at once and measure in turn (turns.ts).
  await inTurns([
    ...perStore(settings.stores, want("send"), sends, SEND_ROUTE, "sending", (store) => runSendScenario(store, settings)),
    ...perStore(settings.stores, want("search"), searches, READ_ROUTE, "search", (store) => runSearchScenario(store, settings)),
  ]);
  await inTurns([
    ...perStore(settings.stores, want("groups"), groups, GROUPS_ROUTE, "user groups", (store) => runGroupsScenario(store, settings)),
    ...perStore(settings.stores, want("presence"), presence, PRESENCE_ROUTE, "presence", (store) => runPresenceScenario(store, settings)),
    ...perStore(settings.stores, want("email"), email, EMAIL_WORKER, "missed-message emails", (store) => runEmailScenario(store, settings)),
  ]);
  await inTurns([
    ...perStore(settings.stores, want("push"), push, PUSH_WORKER, "push notifications", (store) => runPushScenario(store, settings)),
    ...perStore(settings.stores, wantReads.register || wantReads.messages, reads, REGISTER_ACTION, "register and message list", (store) => runReadsScenario(store, settings, wantReads)),
  ]);
  await inTurns([
    ...perStore(settings.stores, delivery || want("memory"), fanout, LONG_POLL, delivery ? "long-poll fan-out and memory" : "memory", (store) => runFanoutScenario(store, settings, delivery)),
    ...perStore(clusterStores, true, cluster, CLUSTER, "several processes behind nginx", () => runClusterScenario(settings)),
    ...perStore(webStores, true, webapp, WEB_APP, "web app", (store) => runWebAppScenario(store)),
  ]);
  console.log("- bare http server again...");
  const baselineAfter = await measureBaseline(settings);
  const results: RunResults = {
    command: commandLine(),
    machine,
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    totalSeconds: (performance.now() - started) / 1000,
    baselineBefore,
    baselineAfter,
    sends,
    searches,
    groups,
    presence,
    push,
    email,
    reads,
    readsBaseline,
    fanout,
    cluster,
    webapp,
  };
  const markdown = renderMarkdown(results);
  console.log(`\n${markdown}`);
  if (settings.profileDir) console.log(`CPU profiles of the Parley servers (and the fan-out's bare long-poll server): ${settings.profileDir}`);
  if (settings.writeDocs) {
    writeDocs(markdown);
    console.log(`Wrote ${path.relative(process.cwd(), DOCS)}`);
  }
  console.log(`Whole run: ${Math.round(results.totalSeconds)} s, ${parleyStarts.count} Parley servers started, ${Math.round(parleyStarts.seconds)} s of starting in all (some at once)${settings.quick ? " (quick: docs/benchmarks.md left as it is)" : ""}`);
}

// Ctrl-C or a kill: exit, so servers.ts's exit hook stops the servers this run started.
process.once("SIGINT", () => process.exit(130));
process.once("SIGTERM", () => process.exit(143));
const longNamed = namedLongScenarios(process.argv.slice(2));
if (longNamed.length > 0) process.exitCode = await runLongScenarios(longNamed);
else await main();

/**
 * Scenario `history` (issue 37; run when named: `npm run bench -- history`): what each common
 * request costs the server as the data grows. The same org (bench/history-org.ts) on two SQLite
 * stores, one with BENCH_HISTORY_MESSAGES channel messages and one with ten times as many (with
 * their flag rows, most of them unread); each request kind is sent BENCH_HISTORY_REQUESTS times,
 * one at a time at BENCH_HISTORY_RATE a second, as the readers in turn (whose answers are the
 * same size on both stores), and its server CPU per request and p50 compared. A request counts
 * as bounded when its cost must not grow with the history; the others grow with their answer.
 */
import { freshStore } from "../test/helpers/stores.ts";
import { basicAuth, type BenchUser } from "./org.ts";
import { createHistoryUsers, READERS, seedHistoryOrg, type HistoryOrg } from "./history-org.ts";
import { num } from "./settings.ts";
import { cpuSeconds, startParley, waitUntilIdle, type BenchServer } from "./servers.ts";
import { prng, sentence } from "./text.ts";

export type HistorySettings = { messages: number; requests: number; rate: number; only: string | null };

/** One request kind on one store. */
export type KindFigures = { cpuMs: number; p50Ms: number; answerBytes: number; failed: number; firstFailure: string | null };

/** A request kind: whether its cost should stay flat as the history grows, and why not when not. */
export type HistoryKind = { name: string; bounded: boolean; why?: string };

export type HistoryStoreResult = { messages: number; flagRows: number; unreadRows: number; seedSeconds: number; figures: Map<string, KindFigures> };

export type HistoryResult = { settings: HistorySettings; kinds: HistoryKind[]; small: HistoryStoreResult; large: HistoryStoreResult };

export function historySettings(): HistorySettings {
  return {
    messages: Math.round(num("BENCH_HISTORY_MESSAGES", 3_500)),
    requests: Math.round(num("BENCH_HISTORY_REQUESTS", 150)),
    rate: num("BENCH_HISTORY_RATE", 25),
    // Only the request kinds whose name holds this text (for a look at one).
    only: process.env.BENCH_HISTORY_ONLY || null,
  };
}

type Call = { method: "GET" | "POST" | "PATCH" | "DELETE"; path: string; params: Record<string, string> };
type Ctx = { org: HistoryOrg; reader: BenchUser; i: number; random: () => number; sentIds: Map<number, number[]> };

const CAPABILITIES = JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_settings_object: true, stream_typing_notifications: true, empty_topic_name: true, archived_channels: true, simplified_presence_events: true });
const register: Call["params"] = { apply_markdown: "true", client_gravatar: "true", slim_presence: "true", client_capabilities: CAPABILITIES };

/** The request kinds measured, each with the request it sends as reader `ctx.reader`. */
const KINDS: (HistoryKind & { call(ctx: Ctx): Call; everyUnread?: boolean })[] = [
  { name: "POST /register (full snapshot)", bounded: true, call: () => ({ method: "POST", path: "/register", params: register }) },
  { name: "POST /register (full snapshot), a user who read nothing", bounded: false, everyUnread: true, why: "the snapshot lists every unread message (up to MAX_UNREAD_MESSAGES, 50,000): it grows with the user's unread messages", call: () => ({ method: "POST", path: "/register", params: register }) },
  { name: "POST /users/me/status", bounded: true, call: (c) => ({ method: "POST", path: "/users/me/status", params: { status_text: `busy ${c.i}` } }) },
  { name: "POST /users/me/presence", bounded: true, call: () => ({ method: "POST", path: "/users/me/presence", params: { status: "active", new_user_input: "true", slim_presence: "true" } }) },
  { name: "POST /typing (channel topic)", bounded: true, call: (c) => ({ method: "POST", path: "/typing", params: { type: "stream", stream_id: String(channelOf(c).id), topic: channelOf(c).topics[0], op: "start" } }) },
  { name: "POST /messages (channel)", bounded: true, call: (c) => ({ method: "POST", path: "/messages", params: { type: "stream", to: String(channelOf(c).id), topic: channelOf(c).topics[c.i % channelOf(c).topics.length], content: sentence(c.random) } }) },
  { name: "POST /messages (direct)", bounded: true, call: (c) => ({ method: "POST", path: "/messages", params: { type: "direct", to: JSON.stringify([c.org.org.users[20 + (c.i % 10)].id]), content: sentence(c.random) } }) },
  { name: "GET /messages (newest 50)", bounded: true, call: () => ({ method: "GET", path: "/messages", params: { anchor: "newest", num_before: "50", num_after: "0" } }) },
  { name: "GET /messages (first_unread, 25 around)", bounded: true, call: () => ({ method: "GET", path: "/messages", params: { anchor: "first_unread", num_before: "25", num_after: "25" } }) },
  { name: "GET /messages (a channel, newest 50)", bounded: true, call: (c) => ({ method: "GET", path: "/messages", params: { anchor: "newest", num_before: "50", num_after: "0", narrow: JSON.stringify([{ operator: "channel", operand: channelOf(c).id }]) } }) },
  { name: "GET /users/me/{channel}/topics", bounded: false, why: "each topic's newest message is found by grouping every message of the channel by topic, as upstream's get_topic_history_for_stream does: the cost grows with the channel's history although the answer (10 topics here) does not", call: (c) => ({ method: "GET", path: `/users/me/${channelOf(c).id}/topics`, params: {} }) },
  { name: "POST /messages/flags (read, 10 ids)", bounded: true, call: (c) => ({ method: "POST", path: "/messages/flags", params: { op: "add", flag: "read", messages: JSON.stringify(c.sentIds.get(c.reader.id)?.slice(-10) ?? []) } }) },
  { name: "POST /mark_topic_as_read", bounded: true, call: (c) => ({ method: "POST", path: "/mark_topic_as_read", params: { stream_id: String(channelOf(c).id), topic_name: channelOf(c).topics[c.i % channelOf(c).topics.length] } }) },
  { name: "GET /users/me/subscriptions", bounded: true, call: () => ({ method: "GET", path: "/users/me/subscriptions", params: {} }) },
];

function chosenKinds(settings: HistorySettings): typeof KINDS {
  return settings.only === null ? KINDS : KINDS.filter((k) => k.name.includes(settings.only ?? ""));
}

/** A channel the reader is in (readers are in every other channel), varying with the request. */
function channelOf(c: Ctx): HistoryOrg["channels"][number] {
  const mine = c.org.channels.filter((ch) => ch.members.some((m) => m.id === c.reader.id));
  return mine[c.i % mine.length];
}

async function send(url: string, user: BenchUser, call: Call): Promise<{ ok: boolean; status: number; text: string; ms: number }> {
  const query = new URLSearchParams(call.params).toString();
  const init: RequestInit = { method: call.method, headers: { authorization: basicAuth(user), "user-agent": "ParleyBench/1.0" } };
  let target = `${url}/api/v1${call.path}`;
  if (call.method === "GET" || call.method === "DELETE") target += `?${query}`;
  else init.body = new URLSearchParams(call.params);
  const t0 = performance.now();
  const res = await fetch(target, init);
  const text = await res.text();
  const ms = performance.now() - t0;
  return { ok: res.ok && text.includes('"result":"success"'), status: res.status, text, ms };
}

/** Sends `settings.requests` of one kind, paced, one at a time; the server's CPU over them per request. */
async function measureKind(server: BenchServer, org: HistoryOrg, kind: (typeof KINDS)[number], settings: HistorySettings, sentIds: Map<number, number[]>): Promise<KindFigures> {
  // Users past the readers have every message they received unread.
  const readers = kind.everyUnread ? org.org.users.slice(2 + READERS, 2 + 2 * READERS) : org.org.users.slice(1, 1 + READERS);
  const random = prng(7);
  const times: number[] = [];
  let failed = 0;
  let firstFailure: string | null = null;
  let answerBytes = 0;
  // Unmeasured warm-up: the first requests compile code and fill caches.
  const total = settings.requests + 10;
  let cpuBefore = 0;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    if (i === 10) cpuBefore = cpuSeconds(server.pid) ?? 0;
    const wait = started + (i * 1000) / settings.rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const reader = readers[i % readers.length];
    const res = await send(server.url, reader, kind.call({ org, reader, i, random, sentIds }));
    if (!res.ok) {
      failed += 1;
      firstFailure ??= `HTTP ${res.status} ${res.text.slice(0, 200)}`;
    }
    if (i >= 10) times.push(res.ms);
    answerBytes = res.text.length;
    const id = kind.name.startsWith("POST /messages (") ? (JSON.parse(res.text) as { id?: number }).id : undefined;
    if (id !== undefined) sentIds.set(reader.id, [...(sentIds.get(reader.id) ?? []), id].slice(-20));
  }
  const cpuAfter = cpuSeconds(server.pid) ?? 0;
  times.sort((a, b) => a - b);
  return { cpuMs: ((cpuAfter - cpuBefore) * 1000) / settings.requests, p50Ms: times[Math.floor(times.length / 2)] ?? 0, answerBytes, failed, firstFailure };
}

async function measureStore(messages: number, settings: HistorySettings, log: (line: string) => void): Promise<HistoryStoreResult> {
  const fresh = await freshStore("sqlite");
  const users = await createHistoryUsers(fresh);
  const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: null });
  try {
    const org = await seedHistoryOrg(fresh, server.url, users, messages);
    log(`  history: ${messages.toLocaleString("en-US")} messages, ${org.flagRows.toLocaleString("en-US")} flag rows (${org.unreadRows.toLocaleString("en-US")} unread) in ${org.seedSeconds.toFixed(1)} s`);
    await waitUntilIdle(server, 30_000);
    const figures = new Map<string, KindFigures>();
    const sentIds = new Map<number, number[]>();
    for (const kind of chosenKinds(settings)) {
      const f = await measureKind(server, org, kind, settings, sentIds);
      figures.set(kind.name, f);
      log(`  ${messages.toLocaleString("en-US")} messages: ${kind.name}: CPU ${f.cpuMs.toFixed(2)} ms, p50 ${f.p50Ms.toFixed(2)} ms, answer ${f.answerBytes} B${f.failed ? `, ${f.failed} FAILED: ${f.firstFailure}` : ""}`);
      await waitUntilIdle(server, 30_000);
    }
    return { messages, flagRows: org.flagRows, unreadRows: org.unreadRows, seedSeconds: org.seedSeconds, figures };
  } finally {
    await server.stop();
    await fresh.drop();
  }
}

/** Runs the history scenario: the small store, then the one with ten times the messages. */
export async function runHistoryScenario(settings: HistorySettings, log: (line: string) => void): Promise<HistoryResult> {
  const small = await measureStore(settings.messages, settings, log);
  const large = await measureStore(settings.messages * 10, settings, log);
  return { settings, kinds: chosenKinds(settings).map(({ name, bounded, why }) => ({ name, bounded, why })), small, large };
}



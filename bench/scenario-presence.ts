/**
 * Scenario 4: what presence costs. BENCH_PRESENCE_USERS users (1,000 by default) each send one
 * POST /users/me/presence, spread evenly over the measured seconds, and the server's CPU is read
 * from /proc around them. Every user's stored presence is seeded first so that it is 58 s old
 * when that user pings, as in the steady state of clients pinging once a minute: every ping
 * writes (upstream rewrites a time older than 55 s) and none comes online (70 s). Two passes:
 * - pings: `ping_only=true` (the write path);
 * - polls: what the web and mobile apps send (`last_update_id` of a minute ago, so each answer
 *   holds every user's changed presence), seconds after the pings, so they write nothing: the
 *   read path alone.
 * A third pass of GET /users/{id}/status, as paced, gives the floor any authenticated request
 * pays (HTTP, authentication, two indexed reads); a window with no requests, the idle server.
 * Before any of them, every measured user sends one unmeasured request: a client pinging every
 * minute finds its authentication cached, and the first request of each user would not.
 */
import http from "node:http";
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import { basicAuth, createOrg, type BenchUser } from "./org.ts";
import { cpuSeconds, profileFlags, startBaseline, startParley, type BenchServer } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";

/** One paced pass: requests answered, errors, latency and the server CPU spent in its window. */
export type PresencePass = { requests: number; errors: number; firstError: string | null; p50Ms: number; p99Ms: number; serverCpuMs: number | null };

/** The presence figures of one store. */
export type PresenceResult = {
  store: StoreKind;
  users: number;
  seconds: number;
  pings: PresencePass;
  polls: PresencePass;
  /** The same pacing of one of the smallest authenticated reads (GET /users/{id}/status, two indexed reads): the HTTP and authentication floor. */
  floor: PresencePass;
  /** The ceiling: a bare Node `http` server (bench/baseline-server.ts) answering the same pings, paced the same. */
  ceiling: PresencePass;
  /** Server CPU over an equal window without requests. */
  idleCpuMs: number | null;
  /** Presence rows the measured passes rewrote (each ping should have, no poll). */
  writes: number;
};

/** The stored presence's age when its user pings: a client pings every 60 s, so about that. */
const SEEDED_AGE_SECONDS = 58;
// Answers to polls hold every user's presence; enough sockets that a slow answer does not delay the pacing.
const SOCKETS = 16;

/**
 * Stores, for each user, a presence SEEDED_AGE_SECONDS old at the time of that user's ping in a
 * pass of `seconds` starting now, numbered after the realm's current sequence number, as the
 * server would have (a second connection beside the running server, between passes). Returns the
 * sequence number after them.
 */
async function seedPresence(fresh: { databaseUrl: string | null; dataDir: string }, realmId: number, users: BenchUser[], seconds: number): Promise<number> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  try {
    const seenAt = (i: number) => Math.floor(Date.now() / 1000 + (i * seconds) / users.length) - SEEDED_AGE_SECONDS;
    return await store.db.transaction().execute(async (tx) => {
      const current = await tx.selectFrom("presence_sequence").select("last_update_id").where("realm_id", "=", realmId).executeTakeFirst();
      const base = current?.last_update_id ?? 0;
      const rows = users.map((u, i) => ({ user_id: u.id, realm_id: realmId, last_active_time: seenAt(i), last_connected_time: seenAt(i), last_update_id: base + i + 1 }));
      for (let i = 0; i < rows.length; i += 500) await tx.insertInto("user_presence").values(rows.slice(i, i + 500)).execute();
      const last = base + rows.length;
      if (current) await tx.updateTable("presence_sequence").set({ last_update_id: last }).where("realm_id", "=", realmId).execute();
      else await tx.insertInto("presence_sequence").values({ realm_id: realmId, last_update_id: last }).execute();
      return last;
    });
  } finally {
    await store.close();
  }
}

async function sequenceNumber(fresh: { databaseUrl: string | null; dataDir: string }): Promise<number> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  try {
    const row = await sql<{ n: number }>`select max(last_update_id) as n from presence_sequence`.execute(store.db);
    return Number(row.rows[0]?.n ?? 0);
  } finally {
    await store.close();
  }
}

/** One request of a pass: POST /users/me/presence with a form body, or a GET of `path`. */
type PassRequest = { presenceBody: string } | { getPath: (user: BenchUser) => string };

function send(agent: http.Agent, url: URL, user: BenchUser, request: PassRequest): Promise<{ status: number; text: string }> {
  const body = "presenceBody" in request ? request.presenceBody : "";
  const headers: http.OutgoingHttpHeaders = { authorization: basicAuth(user), "user-agent": "ParleyBench/1.0" };
  if (body) Object.assign(headers, { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) });
  const target = "presenceBody" in request ? { method: "POST", path: "/api/v1/users/me/presence" } : { method: "GET", path: `/api/v1${request.getPath(user)}` };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: url.hostname, port: url.port, ...target, headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);

/** Sends one request per user, the i-th at i * (window / users), and accounts the server's CPU over the whole window. */
async function pacedPass(server: BenchServer, users: BenchUser[], seconds: number, request: PassRequest): Promise<PresencePass> {
  const url = new URL(server.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS });
  const gapMs = (seconds * 1000) / users.length;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const before = cpuSeconds(server.pid);
  const start = performance.now();
  const sends = users.map(async (user, i) => {
    const wait = start + i * gapMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    try {
      const res = await send(agent, url, user, request);
      if (res.status !== 200 || !res.text.includes('"result":"success"')) throw new Error(`HTTP ${res.status}: ${res.text.slice(0, 300)}`);
      latencies.push(performance.now() - t0);
    } catch (err) {
      errors += 1;
      firstError ??= String(err);
    }
  });
  await Promise.all(sends);
  // The window is the whole measured time even if the last answer came early.
  const rest = start + seconds * 1000 - performance.now();
  if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  const after = cpuSeconds(server.pid);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const serverCpuMs = before === null || after === null ? null : (after - before) * 1000;
  return { requests: latencies.length, errors, firstError, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), serverCpuMs };
}

/** The floor request: a user reads their own status. */
const FLOOR_REQUEST: PassRequest = { getPath: (user) => `/users/${user.id}/status` };

/** Unmeasured users whose polls warm the server up first (each writes once, so they stay out of the measured passes). */
const WARMUP_USERS = 100;

/** Runs the presence scenario on a fresh store of `kind`; the store is dropped afterwards. */
export async function runPresenceScenario(kind: StoreKind, settings: BenchSettings): Promise<PresenceResult> {
  const fresh = await freshStore(kind);
  try {
    const org = await createOrg(fresh, settings.presenceUsers + WARMUP_USERS);
    const warm = org.users.slice(0, WARMUP_USERS);
    const measured = org.users.slice(WARMUP_USERS);
    const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profileFlags(settings, `presence-${kind}`) });
    let pings: PresencePass;
    let polls: PresencePass;
    let floor: PresencePass;
    let idleCpuMs: number | null;
    let writesBefore: number;
    try {
      await pacedPass(server, warm, settings.warmupSeconds, { presenceBody: "status=active&ping_only=false&new_user_input=true&last_update_id=-1" });
      await pacedPass(server, warm, settings.warmupSeconds, FLOOR_REQUEST);
      // Each measured user's first request fills the caches a steady client keeps warm (its
      // authenticated user, its settings): sent once before measuring, as a minute-old client has.
      await pacedPass(server, measured, settings.seconds, FLOOR_REQUEST);
      const idleBefore = cpuSeconds(server.pid);
      await new Promise((r) => setTimeout(r, settings.seconds * 1000));
      const idleAfter = cpuSeconds(server.pid);
      idleCpuMs = idleBefore === null || idleAfter === null ? null : (idleAfter - idleBefore) * 1000;
      writesBefore = await seedPresence(fresh, org.realmId, measured, settings.seconds);
      pings = await pacedPass(server, measured, settings.seconds, { presenceBody: "status=active&ping_only=true&new_user_input=true" });
      // A minute-old last_update_id: each answer holds every presence the pings changed.
      polls = await pacedPass(server, measured, settings.seconds, { presenceBody: `status=active&ping_only=false&new_user_input=true&last_update_id=${writesBefore}` });
      floor = await pacedPass(server, measured, settings.seconds, FLOOR_REQUEST);
    } finally {
      await server.stop();
    }
    const writes = (await sequenceNumber(fresh)) - writesBefore;
    // A paced request costs far more CPU than one under load (each wakes the process alone): the
    // bare server, paced the same, says how much of that is Node's and the kernel's.
    const bare = await startBaseline();
    let ceiling: PresencePass;
    try {
      ceiling = await pacedPass(bare, measured, settings.seconds, { presenceBody: "status=active&ping_only=true&new_user_input=true" });
    } finally {
      await bare.stop();
    }
    return { store: kind, users: measured.length, seconds: settings.seconds, pings, polls, floor, ceiling, idleCpuMs, writes };
  } finally {
    await fresh.drop();
  }
}

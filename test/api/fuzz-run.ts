/**
 * Sending the fuzz test's requests (fuzz.test.ts) and judging each answer: a status below 500,
 * Zulip's envelope, and an answer within the time limit (calibrated to the machine's load).
 */
import net from "node:net";
import type { Credentials } from "../helpers/client.ts";
import { withParams, type Case } from "./fuzz-cases.ts";

const SLOW_MS = 1000;
/** A slow request is sent again alone up to this many times; it fails if it is slow every time. */
const SLOW_RETRIES = 3;
/**
 * On a loaded machine every request slows down alike: the limit grows to this many times the
 * server's heaviest ordinary request (a password check, measured before the run) when that
 * exceeds SLOW_MS / SLOW_FACTOR. On a quiet machine the limit stays at SLOW_MS.
 */
const SLOW_FACTOR = 5;
export const CONCURRENCY = 4;
type Outcome = { status: number; text: string; location: string | null; ms: number };

/** Sends a request whose body does not match its headers on a plain socket. */
function sendOnSocket(url: string, c: Case): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  const head = [`${c.method} ${c.target} HTTP/1.1`, `Host: ${hostname}:${port}`, "Connection: close", ...Object.entries(c.headers).map(([k, v]) => `${k}: ${v}`)].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      let body = split < 0 ? "" : text.slice(split + 4);
      if (/transfer-encoding: chunked/i.test(text.slice(0, split))) body = body.replace(/^[0-9a-f]+\r\n/i, "").replace(/\r\n0\r\n\r\n$/, "");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text: body });
    });
    socket.end(Buffer.concat([Buffer.from(head + "\r\n\r\n"), Buffer.from(c.body ?? "")]));
  });
}

async function send(url: string, c: Case): Promise<Outcome> {
  const started = performance.now();
  if (c.socket) {
    const { status, text } = await sendOnSocket(url, c);
    return { status, text, location: null, ms: performance.now() - started };
  }
  const body = typeof c.body === "string" || c.body === undefined ? c.body : new Uint8Array(c.body);
  const res = await fetch(url + c.target, { method: c.method, headers: c.headers, body, redirect: "manual" });
  const text = c.raw && res.status === 200 ? "" : await res.text();
  if (c.raw && res.status === 200) await res.arrayBuffer().catch(() => undefined);
  return { status: res.status, text, location: res.headers.get("location"), ms: performance.now() - started };
}

/** What is wrong with a response (its time apart), or null. */
function problem(c: Case, out: Outcome): string | null {
  if (out.status >= 500 || out.status === 0) return `status ${out.status}: ${out.text.slice(0, 160)}`;
  if (c.raw && out.status === 304) return null;
  if (out.status >= 300 && out.status < 400) return out.location ? null : `redirect without Location`;
  if (c.raw && out.status === 200) return null;
  let body: { result?: unknown; msg?: unknown; code?: unknown };
  try {
    body = JSON.parse(out.text);
  } catch {
    return `status ${out.status}, not JSON: ${out.text.slice(0, 160)}`;
  }
  if (out.status === 200) return body.result === "success" && body.msg === "" ? null : `200 outside the envelope: ${out.text.slice(0, 160)}`;
  const enveloped = body.result === "error" && typeof body.msg === "string" && typeof body.code === "string";
  return enveloped ? null : `status ${out.status} outside the envelope: ${out.text.slice(0, 160)}`;
}

/** The time limit per request: SLOW_MS, or more on a machine too busy for a password check in SLOW_MS / SLOW_FACTOR. */
let slowMs = SLOW_MS;

/** Measures a wrong-password login (the heaviest ordinary request: a password hash) to set slowMs. */
export async function calibrate(url: string, member: Credentials): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const out = await send(url, withParams("calibration", "POST", "/api/v1/fetch_api_key", [["username", member.email], ["password", "wrong"]], {}));
    times.push(out.ms);
  }
  slowMs = Math.max(SLOW_MS, SLOW_FACTOR * Math.min(...times));
}

async function check(url: string, c: Case): Promise<{ found: string | null; slow: boolean }> {
  try {
    const out = await send(url, c);
    const found = problem(c, out);
    if (found === null && out.ms > slowMs) return { found: `took ${Math.round(out.ms)} ms, limit ${Math.round(slowMs)} ms (status ${out.status})`, slow: true };
    return { found, slow: false };
  } catch (err) {
    return { found: `request failed: ${String(err)}`, slow: false };
  }
}

/**
 * Runs cases with bounded concurrency; returns one line per failing case. A request that was
 * only slow is sent again alone (SLOW_RETRIES times at most): on a busy machine, waiting behind
 * the other requests in flight is not the request's own cost.
 */
export async function runCases(url: string, cases: Case[], concurrency: number): Promise<string[]> {
  const failures: string[] = [];
  const slow: Case[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      const { found, slow: onlySlow } = await check(url, c);
      if (onlySlow) slow.push(c);
      else if (found) failures.push(`${c.method} ${c.target.slice(0, 120)} [${c.label}]: ${found}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const c of slow) {
    let last: string | null = null;
    for (let attempt = 0; attempt < SLOW_RETRIES; attempt++) {
      const result = await check(url, c);
      last = result.found;
      if (!result.slow) break;
    }
    if (last) failures.push(`${c.method} ${c.target.slice(0, 120)} [${c.label}]: ${last}`);
  }
  return failures;
}

/** The server's error lines, one per route and error message, with how often each came. */
export function loggedErrors(output: string): string[] {
  const counts = new Map<string, number>();
  for (const line of output.split("\n")) {
    if (!line.includes('"level":50')) continue;
    let entry: { method?: string; path?: string; msg?: string; err?: { type?: string; message?: string } };
    try {
      entry = JSON.parse(line);
    } catch {
      entry = { msg: line.slice(0, 300) };
    }
    const key = `${entry.method ?? ""} ${entry.path ?? ""}: ${entry.msg ?? ""}: ${entry.err?.type ?? ""} ${(entry.err?.message ?? "").slice(0, 200)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key} (${n}×)`).sort();
}

export function report(failures: string[], count: number): string {
  return `${failures.length} of ${count} requests failed:\n${failures.slice(0, 150).join("\n")}`;
}

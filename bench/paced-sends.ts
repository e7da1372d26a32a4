/**
 * What the notification scenarios (push, email) share: channel messages sent one at a time at a
 * fixed pace with the client timing each (to one server, or in turn to several), a helper service in a process of its own (the stand-in
 * push relay, the SMTP sink) that reports what it received, and waiting for a queue to drain.
 */
import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { basicAuth, type BenchOrg } from "./org.ts";
import { ROOT } from "./servers.ts";

/** One paced pass of sends: how many, how many failed, and the client's latency. */
export type PacedPass = { sends: number; errors: number; p50Ms: number; p99Ms: number };

/** Send `i`'s channel, topic and content. */
export type PacedMessage = (i: number) => { to: number; topic: string; content: string };

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);

/** One server a run of interleaved sends goes to: its address, its org (same shape on each) and what each message is. */
export type SendTarget = { url: string; org: BenchOrg; message: PacedMessage };

/**
 * Sends to several servers in turn: every 1/perSecond s one message to each (by the next of its
 * org's users but the first, the owner), in an order that
 * rotates each time, so load elsewhere on the machine falls on all of them alike. Returns each
 * server's pass, in the targets' order, and when the last send was answered.
 */
export async function interleavedSends(targets: readonly SendTarget[], perSecond: number, seconds: number): Promise<{ passes: PacedPass[]; endedAt: number }> {
  const count = seconds * perSecond;
  const latencies: number[][] = targets.map(() => []);
  const errors = targets.map(() => 0);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (let k = 0; k < targets.length; k++) {
      const t = (i + k) % targets.length;
      const { url, org, message } = targets[t];
      const user = org.users[1 + (i % (org.users.length - 1))];
      const { to, topic, content } = message(i);
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { authorization: basicAuth(user), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ type: "stream", to: String(to), topic, content }),
      });
      const text = await res.text();
      latencies[t].push(performance.now() - t0);
      if (!res.ok || !text.includes('"result":"success"')) errors[t]++;
    }
  }
  const passes = latencies.map((l, t) => {
    l.sort((a, b) => a - b);
    return { sends: count, errors: errors[t], p50Ms: quantile(l, 0.5), p99Ms: quantile(l, 0.99) };
  });
  return { passes, endedAt: performance.now() };
}

/**
 * Sends `seconds x perSecond` channel messages to one server, paced, one at a time, each by the
 * next of the org's users but the first (the owner); returns the pass and when its last send was answered.
 */
export async function pacedSends(url: string, org: BenchOrg, perSecond: number, seconds: number, message: PacedMessage): Promise<{ pass: PacedPass; endedAt: number }> {
  const { passes, endedAt } = await interleavedSends([{ url, org, message }], perSecond, seconds);
  return { pass: passes[0], endedAt };
}

/** A helper service in its own process: the env that points the server at it, what it received, and its end. */
export type HelperProcess<Stats> = { env: Record<string, string>; stats(): Promise<Stats>; close(): void };

/**
 * Forks `script` (relative to the checkout), at `nice`: it stands for a service on another
 * machine, so on this one it yields the CPU to the server under test as far as the scheduler
 * allows. The child sends `{ env }` once ready, answers "stats" with `{ stats }`, and exits
 * when disconnected.
 */
export async function startHelperProcess<Stats>(script: string, nice: number): Promise<HelperProcess<Stats>> {
  const child: ChildProcess = fork(path.join(ROOT, script), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  if (child.pid !== undefined) os.setPriority(child.pid, nice);
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
    child.once("message", (msg) => resolve((msg as { env: Record<string, string> }).env));
  });
  return {
    env,
    stats: () =>
      new Promise((resolve) => {
        child.once("message", (msg) => resolve((msg as { stats: Stats }).stats));
        child.send("stats");
      }),
    close: () => child.disconnect(),
  };
}

/** Polls `check` every 100 ms until it holds; fails after `limitMs`. */
export async function waitUntil(check: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not done after ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

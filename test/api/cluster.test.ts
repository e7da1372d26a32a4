/**
 * Several processes behind nginx, as README.md "Several processes" lays them out: `parley serve
 * --processes 3` on one PostgreSQL store and Redis, and nginx running deploy/nginx.conf (its
 * ports replaced). Needs PostgreSQL, Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379)
 * and nginx (on PATH or in /usr/sbin; `.ci/run` installs Debian's); fails, never skips, without them.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { CliError } from "../../src/cli/args.ts";
import { checkClusterConfig, parseServeOptions } from "../../src/cli/cluster.ts";
import type { Config } from "../../src/config.ts";
import { ApiClient, expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { startEventClient, startSender } from "../helpers/event-clients.ts";
import { getEvents, registerQueue, type Queue } from "../helpers/events.ts";
import { createFixtures, type Fixtures } from "../helpers/fixtures.ts";
import { findNginx, prepareNginx } from "../helpers/nginx.ts";
import { consecutiveFreePorts, waitForPort } from "../helpers/ports.ts";
import { freshStore, STORES, type FreshStore } from "../helpers/stores.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const PROCESSES = 3;
/**
 * Bounds on every wait: the cluster's start, nginx's, a restart, a stop, events to arrive. The
 * cluster starts three servers, the first alone (migrations, and in a fresh checkout the web
 * app's bundle): under a full suite on two cores that took over 30 s.
 */
const START_TIMEOUT_MS = 120_000;
const NGINX_START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 20_000;
const EVENTS_TIMEOUT_MS = 10_000;
/** The header the suite's nginx adds: the addresses of the processes it passed the request to. */
const UPSTREAM_HEADER = "X-Parley-Upstream";
/** A waiting poll gets a heartbeat this soon, so no poll outlives the bounds above by much. */
const HEARTBEAT_SECONDS = 2;
/**
 * How long a message event may wait for lower ids: longer than the default, so that a process
 * starved of CPU on a loaded machine (sends committing late) is waited for, not given up on.
 */
const ORDER_WAIT_MS = 5000;
/** Concurrent sends per process in each round of the order test. */
const SENDS_PER_PROCESS = 10;
const SEND_ROUNDS = 3;
/** The graceful restart under load: event clients polling through nginx, and concurrent senders. */
const LOAD_CLIENTS = 12;
const LOAD_SENDERS = 4;
/** Messages sent before the restart, and after the process is back, while the clients poll. */
const SENT_AROUND_RESTART = 20;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Fails unless Redis answers PING at REDIS_URL. */
async function checkRedis(): Promise<void> {
  const url = new URL(REDIS_URL);
  const reply = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname, () => socket.write("PING\r\n"));
    const timer = setTimeout(() => (socket.destroy(), resolve("timeout")), 3000);
    socket.once("data", (d) => (clearTimeout(timer), socket.end(), resolve(d.toString())));
    socket.once("error", (err) => (clearTimeout(timer), resolve(String(err))));
  });
  if (!reply.startsWith("+PONG")) throw new Error(`Redis is unreachable at ${REDIS_URL}: ${reply.trim()}`);
}

/** A child process with its output kept, and a bounded stop. */
type Running = { child: ChildProcess; output(): string; lines(): Array<Record<string, unknown>>; stop(): Promise<number | null> };

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    lines: () => out.split("\n").flatMap((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return typeof value === "object" && value !== null ? [value as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    }),
    /** SIGTERM, then SIGKILL if it has not exited within STOP_TIMEOUT_MS; resolves to the exit code. */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Waits until the process's output holds a line matching `match`; returns it. */
async function waitForLine(proc: Running, match: (line: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = proc.lines().find(match);
    if (line) return line;
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`exited (${proc.child.exitCode ?? proc.child.signalCode}):\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no such line after ${timeoutMs} ms:\n${proc.output()}`);
    await sleep(50);
  }
}

const portOf = (queue: Queue) => Number(queue.queueId.split(":")[0]);

/** Rejects if `promise` has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The processes nginx passed a request to, in order (more than one after a fallback). */
const upstreamsOf = (res: ApiResponse) => (res.headers.get(UPSTREAM_HEADER) ?? "").split(/ : |, /);

/**
 * The message events among a queue's next events, long-polled through nginx until `count`
 * arrived (bounded); every poll must go straight to the process the queue id names.
 */
async function nextMessages(api: ApiClient, queue: Queue, count: number): Promise<Array<{ id: number; content: string }>> {
  const messages: Array<{ id: number; content: string }> = [];
  const deadline = Date.now() + EVENTS_TIMEOUT_MS;
  while (messages.length < count) {
    assert.ok(Date.now() < deadline, `${messages.length} of ${count} messages arrived on queue ${queue.queueId}: ${JSON.stringify(messages)}`);
    const res = await getEvents(api, queue.user, { queue_id: queue.queueId, last_event_id: queue.lastEventId });
    assert.deepEqual(upstreamsOf(res), [`127.0.0.1:${portOf(queue)}`], `nginx's routing of ${queue.queueId}`);
    const body = expectSuccess(res);
    for (const event of body.events as Array<{ id: number; type: string; message?: { id: number; content: string } }>) {
      queue.lastEventId = Math.max(queue.lastEventId, event.id);
      if (event.type === "message" && event.message) messages.push({ id: event.message.id, content: event.message.content });
    }
  }
  return messages;
}

/** The contents of the queue's next `count` message events (see nextMessages). */
async function nextContents(api: ApiClient, queue: Queue, count: number): Promise<string[]> {
  return (await nextMessages(api, queue, count)).map((message) => message.content);
}

for (const kind of STORES.filter((store) => store === "postgres")) {
  describe(`serve --processes 3 behind nginx [${kind}]`, () => {
    let store: FreshStore;
    let fixtures: Fixtures;
    let ports: number[];
    let launcher: Running;
    let nginx: Running;
    let nginxDir: string;
    let viaNginx: ApiClient;
    const direct = (port: number) => new ApiClient(`http://127.0.0.1:${port}`);
    /** The pid of the process that last reported listening on a port (the launcher logs it). */
    const pidOn = (port: number) => launcher.lines().filter((l) => l.msg === "server process is listening" && l.port === port).at(-1)?.serverPid;
    const send = (api: ApiClient, from: Credentials, to: number, content: string) =>
      api.post(from, "/messages", { type: "direct", to: JSON.stringify([to]), content });

    before(async () => {
      const nginxBin = findNginx();
      await checkRedis();
      store = await freshStore(kind);
      fixtures = await createFixtures(store);
      ports = await consecutiveFreePorts(PROCESSES);
      const [nginxPort] = await consecutiveFreePorts(1);
      const site = `http://127.0.0.1:${nginxPort}`;
      viaNginx = new ApiClient(site);

      const env: NodeJS.ProcessEnv = {
        ...process.env, HOST: "127.0.0.1", PORT: String(ports[0]), DATA_DIR: store.dataDir, DATABASE_URL: store.databaseUrl ?? "",
        REDIS_URL, EXTERNAL_URL: site, LOG_LEVEL: "info", RATE_LIMITS: "off", PRESENCE_WRITE_DELAY_MS: "0",
        EVENT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS), EVENT_ORDER_WAIT_MS: String(ORDER_WAIT_MS),
      };
      delete env.PROCESS_ID;
      delete env.INTERNAL_URL;
      launcher = run(process.execPath, [path.join(ROOT, "bin/parley.js"), "serve", "--processes", String(PROCESSES)], env);
      await waitForLine(launcher, (l) => l.msg === `Parley is serving on ${PROCESSES} processes`, START_TIMEOUT_MS);

      // UPSTREAM_HEADER: which process answered, so the suite sees nginx's routing (not a process forwarding the request).
      const prepared = prepareNginx(nginxPort, ports, { upstreamHeader: UPSTREAM_HEADER });
      nginxDir = prepared.dir;
      nginx = run(nginxBin, prepared.args, process.env);
      await waitForPort(nginxPort, NGINX_START_TIMEOUT_MS, () => (nginx.child.exitCode !== null ? `nginx exited:\n${nginx.output()}` : null));
    });

    after(async () => {
      const nginxCode = await nginx?.stop();
      await launcher?.stop();
      if (nginxDir) fs.rmSync(nginxDir, { recursive: true, force: true });
      await store?.drop();
      assert.ok(nginxCode === undefined || nginxCode === 0, `nginx:\n${nginx?.output()}`);
    });

    test("the launcher serves on consecutive ports; a queue registered through nginx gets the messages sent through every process", async () => {
      const serving = launcher.lines().find((l) => l.msg === `Parley is serving on ${PROCESSES} processes`);
      assert.deepEqual((serving?.processes as Array<{ port: number }>).map((p) => p.port), ports);
      const { member, admin } = fixtures;
      const queue = await registerQueue(viaNginx, member, { event_types: ["message"] });
      assert.ok(ports.includes(portOf(queue)), queue.queueId);
      for (const port of ports) expectSuccess(await send(direct(port), admin, member.id, `sent through ${port}`));
      assert.deepEqual(await nextContents(viaNginx, queue, PROCESSES), ports.map((port) => `sent through ${port}`));
    });

    test("sends through the three processes at once reach every queue in message id order", async () => {
      const { member, admin } = fixtures;
      const queues = await Promise.all(ports.map((port) => registerQueue(direct(port), member, { event_types: ["message"] })));
      const ids: number[] = [];
      // Each round's sends commit in batches on every process at once: a process whose batch drew
      // higher ids can publish before another's lower ones.
      for (let round = 0; round < SEND_ROUNDS; round++) {
        const sends = ports.flatMap((port) => Array.from({ length: SENDS_PER_PROCESS }, (_, i) => send(direct(port), admin, member.id, `round ${round} through ${port}, ${i}`)));
        for (const res of await Promise.all(sends)) ids.push(expectSuccess(res).id as number);
      }
      ids.sort((a, b) => a - b);
      for (const queue of queues) {
        assert.deepEqual((await nextMessages(viaNginx, queue, ids.length)).map((message) => message.id), ids, `message events of ${queue.queueId}`);
      }
    });

    test("a killed process's clients get BAD_EVENT_QUEUE_ID through nginx and register again; the others keep serving; it is restarted", async () => {
      const { member, admin } = fixtures;
      // Round robin spreads registrations: one queue on each process.
      const byPort = new Map<number, Queue>();
      for (let i = 0; i < 10 * PROCESSES && byPort.size < PROCESSES; i++) {
        const queue = await registerQueue(viaNginx, member, { event_types: ["message"] });
        if (!byPort.has(portOf(queue))) byPort.set(portOf(queue), queue);
      }
      assert.deepEqual([...byPort.keys()].sort(), ports);
      const victim = ports[1];
      const survivors = ports.filter((port) => port !== victim);
      const victimPid = pidOn(victim);
      assert.equal(typeof victimPid, "number");
      const lost = byPort.get(victim) as Queue;

      // A poll waiting on the victim when it dies is answered by another process, as is the next one.
      const waiting = getEvents(viaNginx, member, { queue_id: lost.queueId, last_event_id: lost.lastEventId });
      process.kill(Number(victimPid), "SIGKILL");
      for (const res of [await waiting, await getEvents(viaNginx, member, { queue_id: lost.queueId, last_event_id: lost.lastEventId, dont_block: true })]) {
        expectError(res, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${lost.queueId}`);
        assert.equal(res.body.queue_id, lost.queueId);
        // nginx tried the victim, then passed the request to a live process (@anyprocess).
        const tried = upstreamsOf(res);
        assert.equal(tried[0], `127.0.0.1:${victim}`, String(tried));
        assert.ok(survivors.map((port) => `127.0.0.1:${port}`).includes(tried.at(-1) ?? ""), String(tried));
      }

      // Meanwhile the others serve without an error: sends through nginx (round robin passes the
      // dead process on to the next), polls of their queues.
      const sent = Array.from({ length: 2 * PROCESSES }, (_, i) => `after the kill ${i}`);
      for (const content of sent) expectSuccess(await send(viaNginx, admin, member.id, content));
      for (const port of survivors) assert.deepEqual(await nextContents(viaNginx, byPort.get(port) as Queue, sent.length), sent);

      // The client registers again (through nginx) and continues.
      const again = await registerQueue(viaNginx, member, { event_types: ["message"] });
      expectSuccess(await send(viaNginx, admin, member.id, "welcome back"));
      assert.deepEqual(await nextContents(viaNginx, again, 1), ["welcome back"]);
      for (const port of survivors) assert.deepEqual(await nextContents(viaNginx, byPort.get(port) as Queue, 1), ["welcome back"]);

      // The launcher restarts the killed process on its port, which then holds queues of its own.
      const exited = await waitForLine(launcher, (l) => l.msg === "server process exited unexpectedly; restarting it" && l.port === victim, START_TIMEOUT_MS);
      assert.deepEqual({ serverPid: exited.serverPid, signal: exited.signal }, { serverPid: victimPid, signal: "SIGKILL" });
      const restarted = await waitForLine(launcher, (l) => l.msg === "server process is listening" && l.port === victim && l.serverPid !== victimPid, START_TIMEOUT_MS);
      const fresh = await registerQueue(direct(victim), member, { event_types: ["message"] });
      assert.equal(portOf(fresh), victim);
      expectSuccess(await send(direct(survivors[0]), admin, member.id, "to the restarted process"));
      assert.deepEqual(await nextContents(viaNginx, fresh, 1), ["to the restarted process"]);
      assert.equal(pidOn(victim), restarted.serverPid);

      // DELETE /events with queue_id in the query string goes to the queue's process too.
      for (const queue of [fresh, ...survivors.map((port) => byPort.get(port) as Queue)]) {
        const res = await viaNginx.delete(member, "/events", { queue_id: queue.queueId }, { encoding: "query" });
        assert.deepEqual(upstreamsOf(res), [`127.0.0.1:${portOf(queue)}`]);
        expectSuccess(res);
      }
    });

    test("a process restarted gracefully under load through nginx: every client keeps its queue and gets every message once, in id order", async () => {
      const { member, admin } = fixtures;
      const victim = ports[2];
      const queues: Queue[] = [];
      for (let i = 0; i < LOAD_CLIENTS; i++) queues.push(await registerQueue(viaNginx, member, { event_types: ["message"] }));
      const victimQueues = queues.filter((queue) => portOf(queue) === victim).length;
      assert.ok(victimQueues >= 2, `nginx's round robin gave the victim ${victimQueues} queues`);
      const clients = queues.map((queue) => startEventClient(viaNginx, queue, { header: UPSTREAM_HEADER }));
      const sender = startSender(viaNginx, admin, member.id, LOAD_SENDERS);
      const victimPid = pidOn(victim);
      let back: Record<string, unknown> = {};
      try {
        await within(sender.sent(SENT_AROUND_RESTART), EVENTS_TIMEOUT_MS, "sends before the restart");
        process.kill(Number(victimPid), "SIGTERM");
        const exited = await waitForLine(launcher, (l) => l.msg === "server process exited unexpectedly; restarting it" && l.serverPid === victimPid, START_TIMEOUT_MS);
        assert.deepEqual({ code: exited.code, signal: exited.signal }, { code: 0, signal: null }, "a graceful stop");
        back = await waitForLine(launcher, (l) => l.msg === "server process is listening" && l.port === victim && l.serverPid !== victimPid, START_TIMEOUT_MS);
        await within(sender.sent(SENT_AROUND_RESTART), EVENTS_TIMEOUT_MS, "sends after the restart");
      } finally {
        await sender.stop();
      }
      const acked = [...sender.acked].sort((a, b) => a - b);
      try {
        await within(Promise.all(clients.map((client) => client.received(acked))), EVENTS_TIMEOUT_MS, "every acknowledged message on every queue");
      } finally {
        await Promise.all(clients.map((client) => client.stop()));
      }
      assert.deepEqual(sender.failures, []);
      const restored = launcher.lines().find((l) => l.msg === "restored event queues" && l.pid === back.serverPid);
      assert.ok(Number(restored?.queues) >= victimQueues, `the restarted process took back its clients' queues: ${JSON.stringify(restored)}`);
      // While the victim was down, nginx passed its clients' polls to another process (after the
      // victim's address, " : " and the other's), which held them and passed them on once it was back.
      const passed = clients.filter((client) => portOf(client.queue) === victim).flatMap((client) => client.headers).filter((h) => h.startsWith(`127.0.0.1:${victim}`) && h.includes(" : "));
      assert.ok(passed.length > 0, "no poll reached another process while the victim was down");
      const ackedSet = new Set(acked);
      for (const client of clients) {
        assert.deepEqual(client.failures, [], `queue ${client.queue.queueId} got errors`);
        const ids = client.messageIds;
        assert.deepEqual(ids, [...new Set(ids)].sort((a, b) => a - b), `queue ${client.queue.queueId}: each message once, in id order`);
        // A send nginx answered with a 5xx may still have been sent: only those may add messages.
        assert.ok(ids.filter((id) => !ackedSet.has(id)).length <= sender.unknown, `queue ${client.queue.queueId}: messages nobody sent`);
      }
    });

    test("SIGTERM to the launcher stops every process, each saving its event queues", async () => {
      const pids = ports.map(pidOn);
      assert.equal(await launcher.stop(), 0, launcher.output());
      assert.ok(launcher.lines().some((l) => l.msg === "every server process has stopped"), launcher.output());
      for (const port of ports) assert.ok(fs.existsSync(path.join(store.dataDir, `event-queues.${port}.json`)), `queues of ${port} saved`);
      for (const pid of pids) assert.throws(() => process.kill(Number(pid), 0), { code: "ESRCH" }, `process ${pid} still runs`);
    });
  });
}

describe("serve --processes refusals", () => {
  test("the command refuses several processes without Redis: one line, exit 2", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" };
    delete env.REDIS_URL;
    delete env.PROCESS_ID;
    delete env.INTERNAL_URL;
    const child = spawn(process.execPath, [path.join(ROOT, "bin/parley.js"), "serve", "--processes", "3"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise((resolve) => child.once("close", resolve));
    assert.deepEqual({ code, output }, { code: 2, output: "parley serve: --processes needs REDIS_URL: without Redis, events published by one process never reach the queues of the others\n" });
  });

  test("several processes need PostgreSQL, Redis and free ports above PORT", () => {
    const ok: Pick<Config, "databaseUrl" | "redisUrl" | "port"> = { databaseUrl: "postgres://db", redisUrl: "redis://r", port: 9991 };
    checkClusterConfig(ok, 3, {});
    const cases: Array<[typeof ok, number, string]> = [
      [{ ...ok, databaseUrl: null }, 3, "--processes needs DATABASE_URL (PostgreSQL): several processes on one SQLite file would queue for its single writer"],
      [{ ...ok, redisUrl: null }, 3, "--processes needs REDIS_URL: without Redis, events published by one process never reach the queues of the others"],
      [{ ...ok, port: 65534 }, 3, "--processes 3 needs the ports 65534 to 65536: set PORT to the first of 3 free ports"],
      [{ ...ok, port: 0 }, 2, "--processes 2 needs the ports 0 to 1: set PORT to the first of 2 free ports"],
    ];
    for (const [config, processes, message] of cases) assert.throws(() => checkClusterConfig(config, processes, {}), { message, exitCode: 2 });
    for (const name of ["PROCESS_ID", "INTERNAL_URL"]) {
      const message = `--processes names and reaches each process by its port: unset ${name}, which would be the same for all of them`;
      assert.throws(() => checkClusterConfig(ok, 3, { [name]: "x" }), { message, exitCode: 2 });
    }
  });

  test("--processes takes an integer from 1 to 64; serve takes no other option", () => {
    assert.equal(parseServeOptions([]), 1);
    assert.equal(parseServeOptions(["--processes", "4"]), 4);
    assert.equal(parseServeOptions(["--processes=64"]), 64);
    const cases: Array<[string[], string]> = [
      [["--processes", "0"], "--processes must be an integer from 1 to 64 (got '0')"],
      [["--processes", "65"], "--processes must be an integer from 1 to 64 (got '65')"],
      [["--processes", "two"], "--processes must be an integer from 1 to 64 (got 'two')"],
      [["--processes", "1.5"], "--processes must be an integer from 1 to 64 (got '1.5')"],
      [["--processes"], "Option '--processes <value>' argument missing: serve takes no options other than --processes N (configure it with environment variables)"],
      [["--port", "1"], "Unknown option '--port': serve takes no options other than --processes N (configure it with environment variables)"],
      [["3"], "serve takes no options other than --processes N"],
    ];
    for (const [argv, message] of cases) {
      assert.throws(() => parseServeOptions(argv), (err: unknown) => err instanceof CliError && err.exitCode === 2 && err.message.includes(message), `${argv.join(" ")}`);
    }
  });
});

/**
 * Scenarios `fanout` and `memory` (issue 15): event delivery to many long-polling queues, and
 * what holding them costs in memory. One public channel with BENCH_QUEUE_USERS subscribers; for
 * each count in BENCH_QUEUES (1,000 and 10,000), queues are registered over those users (several
 * each when there are more queues than users; `event_types=["message"]`, a cheap snapshot), the
 * server's RSS is read with the queues idle, then (fanout) every queue gets a long poll on a
 * connection of its own and, after one unrecorded send, BENCH_FANOUT_ROUNDS times one channel
 * message is sent and timed from the send's start until every poll has returned it. The bare long-poll server
 * (bench/baseline-longpoll.ts) holding as many polls is measured the same way, in the same run.
 */
import crypto from "node:crypto";
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import { basicAuth, createChannel, createOrg, type BenchUser } from "./org.ts";
import { checkDescriptorLimit, PollSet, registerQueues, type BenchQueue, type DeliveryRound } from "./poll-set.ts";
import { encodeRequest, RawConnection } from "./raw-http.ts";
import { BASELINE_SCRIPTS, profileFlags, rssBytes, startBaseline, serverCpuSeconds, startParley, waitUntilIdle, type BenchServer } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";

/** The timed sends of one server at one queue count. */
export type Delivery = { rounds: DeliveryRound[] };

/** Figures at one queue count. */
export type FanoutSize = {
  queues: number;
  /** Seconds registering this count took, counting the queues of smaller counts before it. */
  registerSeconds: number;
  /** Parley's RSS with this many queues and no poll open (bytes). */
  rssIdle: number | null;
  /** Parley's RSS with a long poll held on every queue, after the sends (bytes). */
  rssPolling: number | null;
  parley: Delivery | null;
  bare: Delivery | null;
  /**
   * Cluster layout only: the bare long-poll server as the same layout, as many processes behind
   * the same nginx configuration (`bareProcesses`; null: not measured).
   */
  bareBehindNginx?: Delivery | null;
  bareProcesses?: number;
  /** The bare long-poll server's RSS holding as many polls (bytes). */
  bareRss: number | null;
};

/** The fan-out and memory figures of one store; `label` names the layout in the report when it is not one process (the store's name). */
export type FanoutResult = { store: StoreKind; label?: string; users: number; rounds: number; delivery: boolean; rssStarted: number | null; sizes: FanoutSize[] };

// Settling after registration and between phases (the server is only idle once it has caught up).
const IDLE_LIMIT_MS = 60_000;

/** The encoded POST /messages of a channel message from `sender` to the fan-out scenario's channel (topic "fan-out"). */
export function sendRequest(url: string, sender: BenchUser, channelId: number, content: string): Buffer {
  const body = new URLSearchParams({ type: "stream", to: String(channelId), topic: "fan-out", content }).toString();
  const headers = { authorization: basicAuth(sender), "content-type": "application/x-www-form-urlencoded", "user-agent": "ParleyBench/1.0" };
  return encodeRequest(new URL(url), "POST", "/api/v1/messages", headers, body);
}

/** Holds a poll on each queue and times `rounds` sends; returns the rounds and the RSS with the polls held. */
export async function timeDelivery(server: BenchServer, queues: BenchQueue[], sender: BenchUser, channelId: number, rounds: number, label: string, opts: { releaseUrls?: readonly string[]; warmups?: number } = {}): Promise<{ delivery: Delivery; rss: number | null }> {
  const releaseUrls = opts.releaseUrls ?? [server.url];
  const warmups = opts.warmups ?? 1;
  const polls = new PollSet(server, queues);
  // The send goes to server.url; bare long-poll servers side by side each get it at once
  // (`releaseUrls`), where Parley's processes pass it on through Redis.
  const senderConnections = releaseUrls.map((url) => ({ url, connection: new RawConnection(new URL(url)) }));
  try {
    await polls.open();
    const timed: DeliveryRound[] = [];
    // The first rounds warm the path up (the first sends through it compile code) and are not
    // recorded: one, or one more where the polls are spread over processes (each compiles its own).
    for (let r = 1 - warmups; r <= rounds; r++) {
      const marker = `fanoutmark${crypto.randomBytes(6).toString("hex")}`;
      const sends = senderConnections.map(({ url, connection }) => ({ connection, bytes: sendRequest(url, sender, channelId, `Fan-out round ${r}: ${marker}`) }));
      const send = async () => {
        const answers = await Promise.all(sends.map(({ connection, bytes }) => connection.request(bytes)));
        return answers.reduce((last, answer) => (answer.at > last.at ? answer : last));
      };
      const round = await polls.timeSend(marker, send, () => serverCpuSeconds(server));
      if (r > 0) timed.push(round);
      const cpu = round.serverCpuMs === null ? "" : `; CPU: server ${round.serverCpuMs.toFixed(0)} ms, this client ${round.clientCpuMs.toFixed(0)} ms`;
      console.log(`    ${label}: ${r <= 0 ? "warm-up send" : `send ${r}`}, every poll answered after ${round.allMs.toFixed(1)} ms${cpu}`);
    }
    return { delivery: { rounds: timed }, rss: rssBytes(server.pid) };
  } finally {
    polls.close();
    for (const { connection } of senderConnections) connection.close();
  }
}

type BareFigures = { delivery: Delivery; rss: number | null };

// With --quick, the bare long-poll server is measured once per poll count and run, and its
// figures stand beside every store's and layout's: a quick run has no time for more.
const bareOfThisRun = new Map<number, BareFigures>();

/** The bare long-poll server holding `count` polls, timed the same way; stopped afterwards. */
export async function measureBare(count: number, users: BenchUser[], settings: BenchSettings): Promise<BareFigures> {
  const shared = settings.quick ? bareOfThisRun.get(count) : undefined;
  if (shared) return shared;
  const figures = await measureBareNow(count, users, settings);
  if (settings.quick) bareOfThisRun.set(count, figures);
  return figures;
}

/** `count` queues of the bare long-poll server (which takes any queue id), held by `users` in turn. */
export function bareQueues(count: number, users: BenchUser[], prefix = "bare"): BenchQueue[] {
  return Array.from({ length: count }, (_, k) => ({ id: `${prefix}:${k}`, user: users[k % users.length], lastEventId: -1 }));
}

async function measureBareNow(count: number, users: BenchUser[], settings: BenchSettings): Promise<BareFigures> {
  const bare = await startBaseline(BASELINE_SCRIPTS.longPoll, profileFlags(settings, `fanout-bare-${count}`));
  try {
    return await timeDelivery(bare, bareQueues(count, users), users[0], 0, settings.fanoutRounds, `bare long-poll server, ${count.toLocaleString("en-US")} polls`);
  } finally {
    await bare.stop();
  }
}

/**
 * Runs the fan-out scenario (and the memory figures) on a fresh store of `kind`; with
 * `delivery` false only queues are registered and RSS read (scenario `memory` alone).
 */
export async function runFanoutScenario(kind: StoreKind, settings: BenchSettings, delivery: boolean): Promise<FanoutResult> {
  const largest = settings.queues[settings.queues.length - 1] ?? 0;
  if (delivery) checkDescriptorLimit(largest);
  const fresh = await freshStore(kind);
  try {
    const org = await createOrg(fresh, Math.min(settings.queueUsers, largest));
    const sizes: FanoutSize[] = [];
    let rssStarted: number | null;
    const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profileFlags(settings, `fanout-${kind}`) });
    try {
      const channelId = await createChannel(server.url, org.users[0], "fan-out bench", org.users);
      await waitUntilIdle(server, IDLE_LIMIT_MS);
      rssStarted = rssBytes(server.pid);
      const queues: BenchQueue[] = [];
      let registerSeconds = 0;
      for (const count of settings.queues) {
        const label = `${kind}, ${count.toLocaleString("en-US")} queues`;
        registerSeconds += await registerQueues(server.url, org.users, queues, count, settings.registerLimitSeconds - registerSeconds, label);
        await waitUntilIdle(server, IDLE_LIMIT_MS);
        const size: FanoutSize = { queues: count, registerSeconds, rssIdle: rssBytes(server.pid), rssPolling: null, parley: null, bare: null, bareRss: null };
        console.log(`    ${label}: registered in ${registerSeconds.toFixed(1)} s; RSS ${((size.rssIdle ?? 0) / 2 ** 20).toFixed(0)} MiB`);
        if (delivery) {
          const timed = await timeDelivery(server, queues.slice(0, count), org.users[0], channelId, settings.fanoutRounds, label);
          size.parley = timed.delivery;
          size.rssPolling = timed.rss;
        }
        sizes.push(size);
      }
    } finally {
      await server.stop();
    }
    if (delivery) {
      for (const size of sizes) {
        const bare = await measureBare(size.queues, org.users, settings);
        size.bare = bare.delivery;
        size.bareRss = bare.rss;
      }
    }
    return { store: kind, users: org.users.length, rounds: settings.fanoutRounds, delivery, rssStarted, sizes };
  } finally {
    await fresh.drop();
  }
}

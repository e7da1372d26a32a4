/**
 * Scenario 5: what phone notifications cost the sender, and how fast they go out. A channel of
 * BENCH_SUBSCRIBERS users; every message mentions an outgoing-webhook bot (served by a local bot
 * server that answers "response_not_required"). Two passes on the same store, each paced at
 * PUSH_SENDS_PER_SECOND for the measured seconds, one send at a time, latency read by the client:
 * - without push: the server has no relay configured;
 * - with push: the server points at the stand-in relay (test/helpers/push-relay.ts), every
 *   subscriber has an FCM token registered and channel push on, so each message notifies every
 *   subscriber but its sender.
 * Then the notifications delivered per second: from the first send of the push pass until the
 * relay has every notification (the relay queue empty). While the worker keeps up, that is the
 * rate they arrive at, a lower bound of what it can deliver.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import type { RelayStats } from "./relay-child.ts";
import { freshStore, type FreshStore, type StoreKind } from "../test/helpers/stores.ts";
import { apiCall, createChannel, createOrg, type BenchOrg } from "./org.ts";
import { pacedSends, startHelperProcess, waitUntil, type HelperProcess, type PacedMessage, type PacedPass } from "./paced-sends.ts";
import { profileFlags, startParley } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";
import { prng, sentence } from "./text.ts";

/** Messages per second each pass sends (one at a time). */
const PUSH_SENDS_PER_SECOND = 10;
/** The stand-in relay's niceness (see startHelperProcess). */
const RELAY_NICE = 15;
/** How long the push pass may take to drain after its last send. */
const DRAIN_LIMIT_MS = 120_000;

/** One paced pass of sends. */
export type PushPass = PacedPass;

/** The push figures of one store. */
export type PushResult = {
  store: StoreKind;
  subscribers: number;
  withoutPush: PushPass;
  withPush: PushPass;
  /** Notifications the relay received (expected: sends x (subscribers - 1)). */
  notifications: number;
  expected: number;
  /** From the push pass's first send until the queue was empty. */
  drainSeconds: number;
  notificationsPerSecond: number;
};

/** A bot's server: answers every outgoing-webhook call with "nothing to post". */
async function startBotServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"response_not_required":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bot`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Each message mentions the bot, over five topics. */
function botMention(channelId: number, botName: string): PacedMessage {
  const random = prng(5);
  return (i) => ({ to: channelId, topic: `push bench ${i % 5}`, content: `@**${botName}** ${sentence(random)}` });
}

async function pendingRelayJobs(fresh: FreshStore): Promise<number> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  try {
    const row = await sql<{ n: number }>`select count(*) as n from push_relay_jobs`.execute(store.db);
    return Number(row.rows[0]?.n ?? 0);
  } finally {
    await store.close();
  }
}

/** The push pass's server: tokens registered, channel push on for every subscriber. */
async function preparePushUsers(url: string, org: BenchOrg, relay: HelperProcess<RelayStats>): Promise<void> {
  for (const user of org.users.slice(1)) {
    await apiCall(url, user, "POST", "/users/me/android_gcm_reg_id", { token: `fcm:bench:${user.id}` });
    await apiCall(url, user, "PATCH", "/settings", { enable_stream_push_notifications: "true" });
  }
  await waitUntil(async () => (await relay.stats()).tokens >= org.users.length - 1, 60_000, "token registrations at the relay");
}

/** Runs the push scenario on a fresh store of `kind`; the store is dropped afterwards. */
export async function runPushScenario(kind: StoreKind, settings: BenchSettings): Promise<PushResult> {
  const fresh = await freshStore(kind);
  const relay = await startHelperProcess<RelayStats>("bench/relay-child.ts", RELAY_NICE);
  const bot = await startBotServer();
  try {
    // The owner plus the subscribers who send and are notified.
    const org = await createOrg(fresh, settings.subscribers + 1);
    const subscribers = org.users.slice(1);
    let channelId = 0;
    const botName = "Push Bench Bot";
    let withoutPush: PushPass;
    // The bot server is on this machine: outgoing webhooks reach it only where OUTGOING_HTTP_ALLOW says.
    const botAllowed = { OUTGOING_HTTP_ALLOW: new URL(bot.url).host };
    const plain = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, env: botAllowed });
    try {
      channelId = await createChannel(plain.url, org.users[0], "push bench", subscribers);
      await apiCall(plain.url, org.users[0], "POST", "/bots", { full_name: botName, short_name: "pushbench", bot_type: "3", payload_url: JSON.stringify(bot.url), interface_type: "1" });
      withoutPush = (await pacedSends(plain.url, org, PUSH_SENDS_PER_SECOND, settings.seconds, botMention(channelId, botName))).pass;
    } finally {
      await plain.stop();
    }
    const pushing = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profileFlags(settings, `push-${kind}`), env: { ...relay.env, ...botAllowed, PUSH_RELAY_RETRY_BASE_MS: "200" } });
    try {
      await preparePushUsers(pushing.url, org, relay);
      const before = (await relay.stats()).notifications;
      const started = performance.now();
      const withPush = (await pacedSends(pushing.url, org, PUSH_SENDS_PER_SECOND, settings.seconds, botMention(channelId, botName))).pass;
      await waitUntil(async () => (await pendingRelayJobs(fresh)) === 0, DRAIN_LIMIT_MS, "push relay queue");
      const drainSeconds = (performance.now() - started) / 1000;
      const notifications = (await relay.stats()).notifications - before;
      return {
        store: kind,
        subscribers: settings.subscribers,
        withoutPush,
        withPush,
        notifications,
        expected: withPush.sends * (subscribers.length - 1),
        drainSeconds,
        notificationsPerSecond: notifications / drainSeconds,
      };
    } finally {
      await pushing.stop();
    }
  } finally {
    await bot.close();
    relay.close();
    await fresh.drop();
  }
}

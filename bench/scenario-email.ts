/**
 * The email scenario: what missed-message emails cost the sender, and how fast they go out. Two
 * fresh stores hold the same org: a channel of BENCH_EMAIL_SUBSCRIBERS users (1,000 by default),
 * every one of them away (no event queue, no presence) with email notifications on for every
 * channel (enable_stream_email_notifications) and a batching period a little longer than the run.
 * Two servers, one per store, are sent to in turn (so other load on the machine falls on both
 * alike), each EMAIL_SENDS_PER_SECOND messages a second over five topics, one at a time, latency
 * read by the client, after unrecorded warm-up sends (BENCH_WARMUP_SECONDS):
 * - without email: the server has no SMTP_URL, so nothing is queued;
 * - with email: its SMTP_URL points at a counting SMTP server in a process of its own, so each
 *   message adds itself to the batch of every subscriber but its sender.
 * Also each server's CPU per send over the measured sends (the email server's decisions
 * included), how long the decisions (who is away) took after the last send, and, once the
 * batches come due, how fast their emails (one per user and topic) were composed into the outbox
 * (whose worker sends them at its own pace, one connection per email).
 */
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { freshStore, type FreshStore, type StoreKind } from "../test/helpers/stores.ts";
import { apiCall, createChannel, createOrg, type BenchOrg, type BenchUser } from "./org.ts";
import { interleavedSends, startHelperProcess, waitUntil, type PacedMessage, type PacedPass } from "./paced-sends.ts";
import { cpuSeconds, profileFlags, startParley, type BenchServer } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";
import type { SmtpStats } from "./smtp-child.ts";
import { prng, sentence } from "./text.ts";
import { takeTurn } from "./turns.ts";

/** Messages per second each pass sends (one at a time). */
const EMAIL_SENDS_PER_SECOND = 10;
/** Topics the sends go to: each subscriber's batch makes one email per topic. */
const TOPICS = 5;
/** The SMTP sink's niceness (it stands for a mail server on another machine). */
const SINK_NICE = 15;
/** How long the batches may take to be composed once due. */
const DRAIN_LIMIT_MS = 300_000;
/** Settings calls at once while preparing the subscribers. */
const SETUP_CONCURRENCY = 8;

/** One paced pass of sends. */
export type EmailPass = PacedPass;

/** The email figures of one store. */
export type EmailResult = {
  store: StoreKind;
  subscribers: number;
  withoutEmail: EmailPass;
  withEmail: EmailPass;
  /** Each server's CPU over the measured sends, per send (the email server's decisions included). */
  cpuMsPerSend: { without: number; with: number };
  /** From the last send of the email pass until every send's decision was made. */
  decisionLagSeconds: number;
  /** Messages added to batches, warm-up sends included (expected: sends x (subscribers - 1)). */
  batched: number;
  /** Emails the batches made, queued in the outbox or already sent (expected: one per subscriber and topic, expectedEmailCount). */
  emails: number;
  expectedEmails: number;
  /** From the first batch's due time until every batch was composed. */
  drainSeconds: number;
  emailsPerSecond: number;
};

/** Plain messages over TOPICS topics. */
function plainMessages(channelId: number): PacedMessage {
  const random = prng(7);
  return (i) => ({ to: channelId, topic: `email bench ${i % TOPICS}`, content: sentence(random) });
}

/**
 * How many emails the batches make: each subscriber gets one per topic, unless they sent every
 * message of it (as pacedSends picks senders and topics).
 */
function expectedEmailCount(subscribers: number, sends: number): number {
  const senders = new Map<number, Set<number>>();
  for (let i = 0; i < sends; i++) {
    const topic = i % TOPICS;
    senders.set(topic, (senders.get(topic) ?? new Set()).add(i % subscribers));
  }
  let total = 0;
  for (const who of senders.values()) total += who.size === 1 ? subscribers - 1 : subscribers;
  return total;
}

/** Row counts of the email tables, and the earliest batch's due time. */
async function queues(fresh: FreshStore): Promise<{ jobs: number; batched: number; emails: number; firstDueMs: number | null }> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  try {
    const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db)).rows[0]?.n ?? 0);
    const first = await sql<{ due: number | null }>`select min(due_at_ms) as due from missed_message_emails`.execute(store.db);
    const due = first.rows[0]?.due;
    return { jobs: await count("email_notify_jobs"), batched: await count("missed_message_emails"), emails: await count("email_jobs"), firstDueMs: due === null || due === undefined ? null : Number(due) };
  } finally {
    await store.close();
  }
}

/** Every subscriber: email notifications on for every channel, a batch a little longer than the pass. */
async function prepareSubscribers(url: string, subscribers: BenchUser[], batchSeconds: number): Promise<void> {
  const params = { enable_stream_email_notifications: "true", email_notifications_batching_period_seconds: String(batchSeconds) };
  for (let i = 0; i < subscribers.length; i += SETUP_CONCURRENCY) {
    await Promise.all(subscribers.slice(i, i + SETUP_CONCURRENCY).map((user) => apiCall(url, user, "PATCH", "/settings", params)));
  }
}

/** The scenario's channel on a server, every subscriber set up; returns the channel's id. */
async function prepareChannel(url: string, org: BenchOrg, batchSeconds: number): Promise<number> {
  const subscribers = org.users.slice(1);
  const channelId = await createChannel(url, org.users[0], "email bench", subscribers);
  await prepareSubscribers(url, subscribers, batchSeconds);
  return channelId;
}

/**
 * Runs the email scenario on two fresh stores of `kind` (dropped afterwards): the same org on
 * each, one server without SMTP_URL and one with, sent to in turn.
 */
export async function runEmailScenario(kind: StoreKind, settings: BenchSettings): Promise<EmailResult> {
  const [plainStore, emailStore] = [await freshStore(kind), await freshStore(kind)];
  const sink = await startHelperProcess<SmtpStats>("bench/smtp-child.ts", SINK_NICE);
  const servers: BenchServer[] = [];
  try {
    // The same organization on each store, made before its server starts (which would make one of its own).
    const orgs = [await createOrg(plainStore, settings.emailSubscribers + 1), await createOrg(emailStore, settings.emailSubscribers + 1)];
    const plain = await startParley({ dataDir: plainStore.dataDir, databaseUrl: plainStore.databaseUrl, setUpThrough: true });
    servers.push(plain);
    const emailing = await startParley({ dataDir: emailStore.dataDir, databaseUrl: emailStore.databaseUrl, nodeFlags: profileFlags(settings, `email-${kind}`), env: sink.env, setUpThrough: true });
    servers.push(emailing);
    // No batch comes due while the passes send.
    const batchSeconds = Math.ceil(settings.seconds + settings.warmupSeconds) + 5;
    const channels = [await prepareChannel(plain.url, orgs[0], batchSeconds), await prepareChannel(emailing.url, orgs[1], batchSeconds)];
    await takeTurn();
    const targets = [
      { url: plain.url, org: orgs[0], message: plainMessages(channels[0]) },
      { url: emailing.url, org: orgs[1], message: plainMessages(channels[1]) },
    ];
    const before = (await sink.stats()).mails;
    // Unrecorded warm-up sends first (the email server's batches hold them too).
    const warmup = await interleavedSends(targets, EMAIL_SENDS_PER_SECOND, settings.warmupSeconds);
    const cpuBefore = servers.map((s) => cpuSeconds(s.pid) ?? 0);
    const { passes, endedAt } = await interleavedSends(targets, EMAIL_SENDS_PER_SECOND, settings.seconds);
    const cpuMs = servers.map((s, i) => (((cpuSeconds(s.pid) ?? 0) - cpuBefore[i]) * 1000) / passes[i].sends);
    await waitUntil(async () => (await queues(emailStore)).jobs === 0, DRAIN_LIMIT_MS, "email decisions");
    const decisionLagSeconds = (performance.now() - endedAt) / 1000;
    const decided = await queues(emailStore);
    const subscribers = settings.emailSubscribers;
    const expectedEmails = expectedEmailCount(subscribers, Math.max(warmup.passes[1].sends, passes[1].sends));
    // Until every batch is composed into the outbox (sending them is the outbox worker's, at its own pace).
    await waitUntil(async () => (await queues(emailStore)).batched === 0, DRAIN_LIMIT_MS, "missed-message batches");
    const doneAtMs = Date.now();
    // Stopped, the server sends no more: what is queued and what was sent add up exactly.
    for (const server of servers.splice(0)) await server.stop();
    const emails = (await queues(emailStore)).emails + (await sink.stats()).mails - before;
    const drainSeconds = decided.firstDueMs === null ? 0 : Math.max((doneAtMs - decided.firstDueMs) / 1000, 0.001);
    return {
      store: kind,
      subscribers,
      withoutEmail: passes[0],
      withEmail: passes[1],
      cpuMsPerSend: { without: cpuMs[0], with: cpuMs[1] },
      decisionLagSeconds,
      batched: decided.batched,
      emails,
      expectedEmails,
      drainSeconds,
      emailsPerSecond: emails / drainSeconds,
    };
  } finally {
    for (const server of servers) await server.stop();
    sink.close();
    await plainStore.drop();
    await emailStore.drop();
  }
}

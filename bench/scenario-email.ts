/**
 * The email scenario: what missed-message emails cost the sender, and how fast they go out. A
 * channel of BENCH_EMAIL_SUBSCRIBERS users (1,000 by default), every one of them away (no event
 * queue, no presence) with email notifications on for every channel (enable_stream_email_notifications)
 * and a batching period a little longer than the pass. Two passes on the same store, each paced
 * at EMAIL_SENDS_PER_SECOND for the measured seconds, one send at a time over five topics,
 * latency read by the client:
 * - without email: the server has no SMTP_URL, so nothing is queued;
 * - with email: SMTP_URL points at a counting SMTP server in a process of its own, so each
 *   message adds itself to every subscriber but its sender's batch.
 * Then how long the decisions (who is away) took after the last send, and, once the batches come
 * due, how fast their emails (one per user and topic) were composed into the outbox (whose
 * worker sends them at its own pace, one connection per email).
 */
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { freshStore, type FreshStore, type StoreKind } from "../test/helpers/stores.ts";
import { apiCall, createChannel, createOrg, type BenchUser } from "./org.ts";
import { pacedSends, startHelperProcess, waitUntil, type PacedMessage, type PacedPass } from "./paced-sends.ts";
import { profileFlags, startParley } from "./servers.ts";
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
  /** From the last send of the email pass until every send's decision was made. */
  decisionLagSeconds: number;
  /** Messages added to batches (expected: sends x (subscribers - 1)). */
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

/** Runs the email scenario on a fresh store of `kind`; the store is dropped afterwards. */
export async function runEmailScenario(kind: StoreKind, settings: BenchSettings): Promise<EmailResult> {
  const fresh = await freshStore(kind);
  const sink = await startHelperProcess<SmtpStats>("bench/smtp-child.ts", SINK_NICE);
  try {
    const org = await createOrg(fresh, settings.emailSubscribers + 1);
    const subscribers = org.users.slice(1);
    // No batch comes due while the email pass sends.
    const batchSeconds = Math.ceil(settings.seconds) + 5;
    let channelId = 0;
    let withoutEmail: EmailPass;
    const plain = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, setUpThrough: true });
    try {
      channelId = await createChannel(plain.url, org.users[0], "email bench", subscribers);
      await prepareSubscribers(plain.url, subscribers, batchSeconds);
      await takeTurn();
      withoutEmail = (await pacedSends(plain.url, org, EMAIL_SENDS_PER_SECOND, settings.seconds, plainMessages(channelId))).pass;
    } finally {
      await plain.stop();
    }
    const emailing = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profileFlags(settings, `email-${kind}`), env: sink.env });
    let stopped = false;
    try {
      const before = (await sink.stats()).mails;
      const { pass: withEmail, endedAt } = await pacedSends(emailing.url, org, EMAIL_SENDS_PER_SECOND, settings.seconds, plainMessages(channelId));
      await waitUntil(async () => (await queues(fresh)).jobs === 0, DRAIN_LIMIT_MS, "email decisions");
      const decisionLagSeconds = (performance.now() - endedAt) / 1000;
      const decided = await queues(fresh);
      const expectedEmails = expectedEmailCount(subscribers.length, withEmail.sends);
      // Until every batch is composed into the outbox (sending them is the outbox worker's, measured by its own pace).
      await waitUntil(async () => (await queues(fresh)).batched === 0, DRAIN_LIMIT_MS, "missed-message batches");
      const doneAtMs = Date.now();
      // Stopped, the server sends no more: what is queued and what was sent add up exactly.
      await emailing.stop();
      stopped = true;
      const emails = (await queues(fresh)).emails + (await sink.stats()).mails - before;
      const drainSeconds = decided.firstDueMs === null ? 0 : Math.max((doneAtMs - decided.firstDueMs) / 1000, 0.001);
      return {
        store: kind,
        subscribers: subscribers.length,
        withoutEmail,
        withEmail,
        decisionLagSeconds,
        batched: decided.batched,
        emails,
        expectedEmails,
        drainSeconds,
        emailsPerSecond: emails / drainSeconds,
      };
    } finally {
      if (!stopped) await emailing.stop();
    }
  } finally {
    sink.close();
    await fresh.drop();
  }
}

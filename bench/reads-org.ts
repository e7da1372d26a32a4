/**
 * The org the register and message-list scenarios read (issue 15): READ_USERS users and
 * BENCH_CHANNELS public channels, each user subscribed to three quarters of them (through the
 * API, so subscription periods open as in use), and BENCH_LIST_MESSAGES channel messages spread
 * over the channels (some channels far busier than others, 30 days of history), bulk-loaded
 * beside the running server, as bench/seed-messages.ts does for one channel. The readers, whose requests
 * are measured, have read all but their newest UNREAD_PER_READER messages: their flag rows are
 * what marking those messages read writes.
 */
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { indexMessages } from "../src/store/messages/search-index.ts";
import { streamRecipientId } from "../src/store/messages/messages.ts";
import { MESSAGE_FLAG, type NewMessage } from "../src/store/schema/database.ts";
import type { FreshStore } from "../test/helpers/stores.ts";
import { apiCall, createOrg, type BenchOrg, type BenchUser } from "./org.ts";
import { plainMessageRow } from "./seed-messages.ts";
import type { BenchSettings } from "./settings.ts";
import { prng, sentence, topicName } from "./text.ts";

/** Users in the org; users[1..READERS] are the readers. */
export const READ_USERS = 100;
/** Users whose requests are measured, in turn. */
export const READERS = 8;
/** Messages each reader has not read (the newest they received). */
export const UNREAD_PER_READER = 300;
// Channel c's subscribers are the users whose index differs from c modulo SUBSCRIPTION_GROUPS.
const SUBSCRIPTION_GROUPS = 4;
const TOPICS_PER_CHANNEL = 8;
const ROWS_PER_STATEMENT = 1_000;
const ROWS_PER_TRANSACTION = 10_000;

/** The seeded org and what it holds. */
export type ReadsOrg = {
  org: BenchOrg;
  readers: BenchUser[];
  channels: number;
  subscriptionsPerUser: number;
  messages: number;
  /** Flag rows written for the readers. */
  readFlags: number;
  seedSeconds: number;
};

const subscribed = (userIndex: number, channelIndex: number) => userIndex % SUBSCRIPTION_GROUPS !== channelIndex % SUBSCRIPTION_GROUPS;

/** Creates the channels through the running server, one call per subscription group; returns their ids in index order. */
async function createChannels(url: string, org: BenchOrg, count: number): Promise<number[]> {
  const owner = org.users[0];
  const name = (c: number) => `reads channel ${c}`;
  for (let g = 0; g < SUBSCRIPTION_GROUPS; g++) {
    const channels = Array.from({ length: count }, (_, c) => c).filter((c) => c % SUBSCRIPTION_GROUPS === g);
    if (channels.length === 0) continue;
    const members = org.users.filter((_, u) => subscribed(u, g)).map((u) => u.id);
    await apiCall(url, owner, "POST", "/users/me/subscriptions", {
      subscriptions: JSON.stringify(channels.map((c) => ({ name: name(c) }))),
      principals: JSON.stringify(members),
    });
  }
  const listed = (await apiCall(url, owner, "GET", "/streams", {})).streams as { stream_id: number; name: string }[];
  const ids = new Map(listed.map((s) => [s.name, s.stream_id]));
  return Array.from({ length: count }, (_, c) => {
    const id = ids.get(name(c));
    if (id === undefined) throw new Error(`channel ${name(c)} was not created`);
    return id;
  });
}

type Seeded = { channelOf: number[]; ids: number[] };

/** Inserts the messages (and their search index entries) in transactions; returns each message's channel index and id. */
async function seedMessages(fresh: FreshStore, realmId: number, users: BenchUser[], streamIds: number[], count: number): Promise<Seeded> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  const random = prng(15);
  const topics = Array.from({ length: 60 }, () => topicName(random));
  const firstSecond = Math.floor(Date.now() / 1000) - 30 * 86_400;
  const step = (30 * 86_400) / count;
  const channelOf: number[] = [];
  const ids: number[] = [];
  try {
    const recipients: number[] = [];
    for (const streamId of streamIds) recipients.push(await store.db.transaction().execute((tx) => streamRecipientId(tx, realmId, streamId)));
    for (let done = 0; done < count; done = Math.min(count, done + ROWS_PER_TRANSACTION)) {
      await store.db.transaction().execute(async (tx) => {
        for (let start = done; start < Math.min(count, done + ROWS_PER_TRANSACTION); start += ROWS_PER_STATEMENT) {
          const rows: NewMessage[] = [];
          for (let i = start; i < Math.min(count, done + ROWS_PER_TRANSACTION, start + ROWS_PER_STATEMENT); i++) {
            // Squaring skews the pick: the first channels carry most of the traffic.
            const c = Math.floor(streamIds.length * random() ** 2);
            let u = 1 + Math.floor(random() * (users.length - 1));
            if (!subscribed(u, c)) u = (u % (users.length - 1)) + 1;
            const content = sentence(random);
            channelOf.push(c);
            rows.push(
              plainMessageRow({
                realmId,
                senderId: users[u].id,
                recipientId: recipients[c],
                streamId: streamIds[c],
                topic: topics[(c * 7 + Math.floor(random() * TOPICS_PER_CHANNEL)) % topics.length],
                content,
                dateSent: Math.floor(firstSecond + i * step),
              }),
            );
          }
          const inserted = (await tx.insertInto("messages").values(rows).returning("id").execute()).map((r) => r.id).sort((a, b) => a - b);
          ids.push(...inserted);
          await indexMessages(tx, store.engine, inserted.map((id, k) => ({ id, topic: rows[k].topic ?? "", renderedContent: rows[k].rendered_content })));
        }
      });
    }
    await sql`update streams set first_message_id = (select min(m.id) from messages m where m.stream_id = streams.id) where realm_id = ${realmId} and first_message_id is null`.execute(store.db);
  } finally {
    await store.close();
  }
  return { channelOf, ids };
}

/** Marks every message a reader received read, but the newest UNREAD_PER_READER; returns the rows written. */
async function markMostRead(fresh: FreshStore, readers: { index: number; user: BenchUser }[], seeded: Seeded): Promise<number> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  let written = 0;
  try {
    for (const reader of readers) {
      const received = seeded.ids.filter((_, k) => subscribed(reader.index, seeded.channelOf[k]));
      const read = received.slice(0, Math.max(0, received.length - UNREAD_PER_READER));
      await store.db.transaction().execute(async (tx) => {
        for (let i = 0; i < read.length; i += ROWS_PER_STATEMENT) {
          const rows = read.slice(i, i + ROWS_PER_STATEMENT).map((message_id) => ({ user_id: reader.user.id, message_id, flags: MESSAGE_FLAG.read }));
          await tx.insertInto("user_message_flags").values(rows).execute();
        }
      });
      written += read.length;
    }
    // Autovacuum would have analysed a store this size, and SQLite's WAL been checkpointed by the
    // server's own writes: both now, rather than mid-measurement.
    if (store.engine === "postgres") await sql`vacuum analyze`.execute(store.db);
    else await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
  } finally {
    await store.close();
  }
  return written;
}

/** Makes the users of the reads org on a fresh store, before any server runs on it. */
export async function createReadsUsers(fresh: FreshStore): Promise<BenchOrg> {
  return createOrg(fresh, READ_USERS);
}

/**
 * Fills the reads org through a server running on `fresh` (the channels) and beside it (the
 * history and the readers' flags, in transactions of another connection, as a restore would;
 * the server's read cache sees other connections' commits).
 */
export async function seedReadsOrg(fresh: FreshStore, url: string, org: BenchOrg, settings: BenchSettings): Promise<ReadsOrg> {
  const started = performance.now();
  const streamIds = await createChannels(url, org, settings.channels);
  const seeded = await seedMessages(fresh, org.realmId, org.users, streamIds, settings.listMessages);
  const readers = org.users.slice(1, 1 + READERS).map((user, k) => ({ index: k + 1, user }));
  const readFlags = await markMostRead(fresh, readers, seeded);
  const perUser = Array.from({ length: settings.channels }, (_, c) => c).filter((c) => subscribed(1, c)).length;
  return {
    org,
    readers: readers.map((r) => r.user),
    channels: settings.channels,
    subscriptionsPerUser: perUser,
    messages: settings.listMessages,
    readFlags,
    seedSeconds: (performance.now() - started) / 1000,
  };
}

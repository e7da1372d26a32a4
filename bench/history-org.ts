/**
 * The org of the history scenario (bench/scenario-history.ts): HISTORY_USERS users, HISTORY_CHANNELS
 * public channels each holding half of them (through the API, so subscription periods open as in
 * use), and `messages` channel messages bulk-loaded beside the running server, with the flag rows
 * a server that settled every user's unreads would hold: every recipient but the sender has a
 * row, unread (flags 0) for everyone but the readers, who have read all but their newest
 * READER_UNREAD; every user's unread watermark stands at the newest message
 * (store/messages/unread-watermarks.ts).
 */
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { indexMessages } from "../src/store/messages/search-index.ts";
import { streamRecipientId } from "../src/store/messages/messages.ts";
import { MESSAGE_FLAG, type NewMessage } from "../src/store/schema/database.ts";
import type { FreshStore } from "../test/helpers/stores.ts";
import { apiCall, createOrg, type BenchOrg, type BenchUser } from "./org.ts";
import { plainMessageRow } from "./seed-messages.ts";
import { prng, sentence, topicName } from "./text.ts";

export const HISTORY_USERS = 40;
const HISTORY_CHANNELS = 10;
/** Users whose requests are measured (users[1..READERS]); their answers are the same size on every store. */
export const READERS = 5;
/** Messages each reader has not read (their newest). */
export const READER_UNREAD = 200;
const TOPICS_PER_CHANNEL = 10;
const ROWS_PER_STATEMENT = 500;
const ROWS_PER_TRANSACTION = 20_000;

/** The seeded org: its channels' ids and members, and what the store holds. */
export type HistoryOrg = { org: BenchOrg; channels: { id: number; members: BenchUser[]; topics: string[] }[]; messages: number; flagRows: number; unreadRows: number; seedSeconds: number };

const member = (userIndex: number, channelIndex: number) => userIndex === 0 || (userIndex + channelIndex) % 2 === 0;

export function createHistoryUsers(fresh: FreshStore): Promise<BenchOrg> {
  return createOrg(fresh, HISTORY_USERS);
}

/** Creates the channels through the running server, then loads `messages` messages and their flag rows beside it. */
export async function seedHistoryOrg(fresh: FreshStore, url: string, org: BenchOrg, messages: number): Promise<HistoryOrg> {
  const started = performance.now();
  const random = prng(37);
  const owner = org.users[0];
  const names = Array.from({ length: HISTORY_CHANNELS }, (_, c) => `history ${c}`);
  for (let c = 0; c < HISTORY_CHANNELS; c++) {
    const members = org.users.filter((_, u) => member(u, c));
    await apiCall(url, owner, "POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: names[c] }]), principals: JSON.stringify(members.map((m) => m.id)) });
  }
  const listed = (await apiCall(url, owner, "GET", "/streams", {})).streams as { stream_id: number; name: string }[];
  const channels = names.map((name, c) => {
    const id = listed.find((s) => s.name === name)?.stream_id;
    if (id === undefined) throw new Error(`channel ${name} was not created`);
    return { id, members: org.users.filter((_, u) => member(u, c)), topics: Array.from({ length: TOPICS_PER_CHANNEL }, () => topicName(random)) };
  });
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  let flagRows = 0;
  let unreadRows = 0;
  try {
    const recipients: number[] = [];
    for (const ch of channels) recipients.push(await store.db.transaction().execute((tx) => streamRecipientId(tx, org.realmId, ch.id)));
    const firstSecond = Math.floor(Date.now() / 1000) - 30 * 86_400;
    const step = (30 * 86_400) / messages;
    // Per reader, the ids they received, to mark all but the newest read.
    const plan: { c: number; sender: BenchUser }[] = [];
    for (let i = 0; i < messages; i++) {
      const c = i % HISTORY_CHANNELS;
      plan.push({ c, sender: channels[c].members[1 + Math.floor(random() * (channels[c].members.length - 1))] });
    }
    const ids: number[] = [];
    for (let done = 0; done < messages; done += ROWS_PER_TRANSACTION) {
      await store.db.transaction().execute(async (tx) => {
        for (let start = done; start < Math.min(messages, done + ROWS_PER_TRANSACTION); start += ROWS_PER_STATEMENT) {
          const rows: NewMessage[] = [];
          for (let i = start; i < Math.min(messages, done + ROWS_PER_TRANSACTION, start + ROWS_PER_STATEMENT); i++) {
            const ch = channels[plan[i].c];
            rows.push(plainMessageRow({ realmId: org.realmId, senderId: plan[i].sender.id, recipientId: recipients[plan[i].c], streamId: ch.id, topic: ch.topics[Math.floor(random() * ch.topics.length)], content: sentence(random), dateSent: Math.floor(firstSecond + i * step) }));
          }
          const inserted = (await tx.insertInto("messages").values(rows).returning("id").execute()).map((r) => r.id).sort((a, b) => a - b);
          ids.push(...inserted);
          await indexMessages(tx, store.engine, inserted.map((id, k) => ({ id, topic: rows[k].topic ?? "", renderedContent: rows[k].rendered_content })));
        }
      });
    }
    // Each reader's received ids, newest last: all but the newest READER_UNREAD are read.
    const readerIndex = new Map(org.users.slice(1, 1 + READERS).map((u, k) => [u.id, k]));
    const receivedByReader: number[][] = Array.from({ length: READERS }, () => []);
    ids.forEach((id, i) => {
      for (const m of channels[plan[i].c].members) {
        const k = readerIndex.get(m.id);
        if (k !== undefined && m.id !== plan[i].sender.id) receivedByReader[k].push(id);
      }
    });
    const readCutoff = receivedByReader.map((list) => list[Math.max(0, list.length - READER_UNREAD)] ?? 0);
    let pending: { user_id: number; message_id: number; flags: number }[] = [];
    const flush = async () => {
      const batch = pending;
      pending = [];
      await store.db.transaction().execute(async (tx) => {
        for (let k = 0; k < batch.length; k += ROWS_PER_STATEMENT) await tx.insertInto("user_message_flags").values(batch.slice(k, k + ROWS_PER_STATEMENT)).execute();
      });
    };
    for (let i = 0; i < ids.length; i++) {
      for (const m of channels[plan[i].c].members) {
        if (m.id === plan[i].sender.id) continue;
        const k = readerIndex.get(m.id);
        const read = k !== undefined && ids[i] < readCutoff[k];
        pending.push({ user_id: m.id, message_id: ids[i], flags: read ? MESSAGE_FLAG.read : 0 });
        flagRows += 1;
        if (!read) unreadRows += 1;
      }
      if (pending.length >= ROWS_PER_TRANSACTION) await flush();
    }
    await flush();
    const newest = ids.at(-1) ?? 0;
    await store.db.deleteFrom("unread_watermarks").execute();
    await store.db.insertInto("unread_watermarks").values(org.users.map((u) => ({ user_id: u.id, message_id: newest }))).execute();
    await sql`update streams set first_message_id = (select min(m.id) from messages m where m.stream_id = streams.id) where realm_id = ${org.realmId} and first_message_id is null`.execute(store.db);
    if (store.engine === "postgres") await sql`vacuum analyze`.execute(store.db);
    else await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
  } finally {
    await store.close();
  }
  return { org, channels, messages, flagRows, unreadRows, seedSeconds: (performance.now() - started) / 1000 };
}

/**
 * Scenario 1: channel messages sent per second. One public channel with BENCH_SUBSCRIBERS
 * subscribers; BENCH_SENDERS concurrent clients POST /messages to it as the subscribers in turn,
 * with varied plain-text content, on a real server with rate limits off.
 */
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import type { LoadRequest } from "./load.ts";
import { basicAuth, createChannel, createOrg } from "./org.ts";
import { loadServer, profileFlags, startParley, type MeasuredLoad } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";
import { prng, sentence } from "./text.ts";

/** The send figure of one store, with what was checked after the run. */
export type SendResult = { store: StoreKind; subscribers: number; senders: number; load: MeasuredLoad; storedMessages: number };

// Distinct bodies per sender, so the server renders varied text rather than one cached string.
const BODIES_PER_USER = 5;

export function sendRequests(channelId: number, users: { email: string; apiKey: string; id: number }[]): LoadRequest[] {
  const random = prng(1);
  const requests: LoadRequest[] = [];
  for (let k = 0; k < BODIES_PER_USER; k++) {
    for (const user of users) {
      const body = new URLSearchParams({ type: "stream", to: String(channelId), topic: `bench topic ${k}`, content: sentence(random) }).toString();
      requests.push({
        method: "POST",
        path: "/api/v1/messages",
        headers: { authorization: basicAuth(user), "content-type": "application/x-www-form-urlencoded", "user-agent": "ParleyBench/1.0" },
        body,
      });
    }
  }
  return requests;
}

/** Runs the send scenario on a fresh store of `kind`; the store is dropped afterwards. */
export async function runSendScenario(kind: StoreKind, settings: BenchSettings): Promise<SendResult> {
  const fresh = await freshStore(kind);
  try {
    const org = await createOrg(fresh, settings.subscribers);
    const profile = profileFlags(settings, `send-${kind}`);
    const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profile });
    let load: MeasuredLoad;
    try {
      const channelId = await createChannel(server.url, org.users[0], "send bench", org.users);
      load = await loadServer(server, {
        requests: sendRequests(channelId, org.users),
        concurrency: settings.senders,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        expectBody: '"result":"success"',
      });
    } finally {
      await server.stop();
    }
    // Every answered send must have written its message.
    const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
    try {
      const row = await sql<{ n: number }>`select count(*) as n from messages`.execute(store.db);
      return { store: kind, subscribers: settings.subscribers, senders: settings.senders, load, storedMessages: Number(row.rows[0]?.n ?? 0) };
    } finally {
      await store.close();
    }
  } finally {
    await fresh.drop();
  }
}

/**
 * Scenarios `register` and `messages` (issue 15: each within 1.5x of SQLite on PostgreSQL), on
 * the org of bench/reads-org.ts, one server for both:
 * - messages: GET /messages?anchor=newest&num_before=100&num_after=0 (the newest 100 messages the
 *   reader received, over every channel they are in), as the readers in turn;
 * - register: a full POST /register (no event_types: every key of the snapshot), with the options
 *   a current mobile client sends, as the readers in turn. Each makes a queue, as at a client's start.
 * Each is measured with one client (latency) and with BENCH_READ_CLIENTS clients (throughput).
 */
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import type { LoadRequest } from "./load.ts";
import { basicAuth, type BenchUser } from "./org.ts";
import { createReadsUsers, seedReadsOrg, UNREAD_PER_READER, type ReadsOrg } from "./reads-org.ts";
import { loadServer, profileFlags, startParley, type BenchServer, type MeasuredLoad } from "./servers.ts";
import { takeTurn } from "./turns.ts";
import type { BenchSettings } from "./settings.ts";

/** One request kind, alone and under the clients' load, with its answer's size. */
export type ReadFigures = { alone: MeasuredLoad; loaded: MeasuredLoad; answerBytes: number };

/** The register and message-list figures of one store. */
export type ReadsResult = {
  store: StoreKind;
  users: number;
  channels: number;
  subscriptionsPerUser: number;
  messages: number;
  /** Users whose requests are measured, in turn. */
  readers: number;
  unreadPerReader: number;
  /** unread_msgs.count in the first reader's snapshot. */
  unreadCount: number | null;
  seedSeconds: number;
  clients: number;
  /** What GET /messages returned to the first reader (expected: 100). */
  listed: number | null;
  messageList: ReadFigures | null;
  register: ReadFigures | null;
};

const HEADERS = { "user-agent": "ParleyBench/1.0" };

/** The capabilities a current mobile client declares at POST /register. */
const CLIENT_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  include_deactivated_groups: true,
  empty_topic_name: true,
  archived_channels: true,
  simplified_presence_events: true,
};

/** The GET /messages request of the scenario, for any server (the bare one included). */
export function messageListRequest(user: BenchUser): LoadRequest {
  const query = new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0" });
  return { method: "GET", path: `/api/v1/messages?${query}`, headers: { ...HEADERS, authorization: basicAuth(user) } };
}

/** The POST /register request of the scenario: no event_types, so the whole snapshot. */
export function registerRequest(user: BenchUser): LoadRequest {
  const body = new URLSearchParams({
    apply_markdown: "true",
    client_gravatar: "true",
    slim_presence: "true",
    client_capabilities: JSON.stringify(CLIENT_CAPABILITIES),
  }).toString();
  return { method: "POST", path: "/api/v1/register", headers: { ...HEADERS, authorization: basicAuth(user), "content-type": "application/x-www-form-urlencoded" }, body };
}

/** Sends one request as `fetch` would and returns the parsed body; throws unless it succeeded. */
async function once(url: string, req: LoadRequest): Promise<{ text: string; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  if (!res.ok || body.result !== "success") throw new Error(`${req.method} ${req.path.split("?")[0]} failed: ${res.status} ${text.slice(0, 300)}`);
  return { text, body };
}

async function measure(server: BenchServer, requests: LoadRequest[], settings: BenchSettings): Promise<Omit<ReadFigures, "answerBytes">> {
  const common = { requests, warmupSeconds: settings.warmupSeconds, seconds: settings.seconds, expectBody: '"result":"success"' };
  const alone = await loadServer(server, { ...common, concurrency: 1 });
  const loaded = await loadServer(server, { ...common, concurrency: settings.readClients });
  for (const run of [alone, loaded]) if (run.errors > 0) throw new Error(`${requests[0].method} ${requests[0].path.split("?")[0]}: ${run.errors} errors, first: ${run.firstError}`);
  return { alone, loaded };
}

/** Seeds the reads org on a fresh store of `kind` and measures the wanted requests; the store is dropped afterwards. */
export async function runReadsScenario(kind: StoreKind, settings: BenchSettings, want: { register: boolean; messages: boolean }): Promise<ReadsResult> {
  const fresh = await freshStore(kind);
  try {
    const org = await createReadsUsers(fresh);
    // One server for the set-up and the measurements: a Parley start costs seconds of CPU here.
    // The history is bulk-loaded seconds before the measurements, where in use it is older than
    // PostgreSQL's settle lag (UNREAD_SETTLE_SECONDS): settle at once, as a server does for old history.
    const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profileFlags(settings, `reads-${kind}`), env: { UNREAD_SETTLE_SECONDS: "0" }, setUpThrough: true });
    let seeded: ReadsOrg;
    let listed: number | null = null;
    let unreadCount: number | null = null;
    let messageList: ReadFigures | null = null;
    let register: ReadFigures | null = null;
    try {
      seeded = await seedReadsOrg(fresh, server.url, org, settings);
      await takeTurn();
      const readers = seeded.readers;
      // The message list first: the register run leaves thousands of queues behind.
      if (want.messages) {
        const first = await once(server.url, messageListRequest(readers[0]));
        listed = Array.isArray(first.body.messages) ? first.body.messages.length : 0;
        messageList = { ...(await measure(server, readers.map(messageListRequest), settings)), answerBytes: Buffer.byteLength(first.text) };
      }
      if (want.register) {
        const first = await once(server.url, registerRequest(readers[0]));
        if (typeof first.body.queue_id !== "string") throw new Error("POST /register made no queue");
        const unread = first.body.unread_msgs as { count?: number } | undefined;
        unreadCount = unread?.count ?? null;
        register = { ...(await measure(server, readers.map(registerRequest), settings)), answerBytes: Buffer.byteLength(first.text) };
      }
    } finally {
      await server.stop();
    }
    return {
      store: kind,
      users: org.users.length,
      channels: seeded.channels,
      subscriptionsPerUser: seeded.subscriptionsPerUser,
      messages: seeded.messages,
      readers: seeded.readers.length,
      unreadPerReader: UNREAD_PER_READER,
      unreadCount,
      seedSeconds: seeded.seedSeconds,
      clients: settings.readClients,
      listed,
      messageList,
      register,
    };
  } finally {
    await fresh.drop();
  }
}

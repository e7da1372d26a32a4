/**
 * Scenario 2: GET /messages with a search narrow (anchor=newest, num_before=50) over a store of
 * BENCH_MESSAGES channel messages, all received by the searching users. A few concurrent clients
 * cycle through queries from frequent to rare words for a fixed time; then each query alone,
 * one client, so the report shows which kind of query costs what.
 */
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import type { LoadRequest } from "./load.ts";
import { basicAuth, createChannel, createOrg, type BenchUser } from "./org.ts";
import { seedMessages } from "./seed-messages.ts";
import { loadServer, profileFlags, startParley, type MeasuredLoad } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";
import { RARE_WORDS, VOCABULARY_SIZE, wordOfRank } from "./text.ts";

/** One query measured alone: how many messages it matches and its latency. */
export type QueryResult = { query: string; matches: number; returned: number; expected: number; p50Ms: number; p99Ms: number };

/** The search figures of one store. */
export type SearchResult = { store: StoreKind; messages: number; seedSeconds: number; clients: number; load: MeasuredLoad; perQuery: QueryResult[] };

const USERS = 20;

/** Search operands from the most frequent word to one that matches nothing. */
export function searchQueries(): string[] {
  return [
    wordOfRank(0),
    wordOfRank(9),
    wordOfRank(99),
    wordOfRank(VOCABULARY_SIZE - 1),
    `${wordOfRank(2)} ${wordOfRank(40)}`,
    RARE_WORDS[0],
    "nomatchword",
  ];
}

function searchRequest(user: BenchUser, query: string): LoadRequest {
  const params = new URLSearchParams({
    anchor: "newest",
    num_before: "50",
    num_after: "0",
    narrow: JSON.stringify([{ operator: "search", operand: query }]),
  });
  return { method: "GET", path: `/api/v1/messages?${params}`, headers: { authorization: basicAuth(user), "user-agent": "ParleyBench/1.0" } };
}

/**
 * Asks each query once and returns how many messages came back, to be shown next to the
 * expected min(50, messages seeded with all its words): a fast but wrong search must show.
 */
async function countResults(url: string, user: BenchUser, queries: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const query of queries) {
    const req = searchRequest(user, query);
    const res = await fetch(`${url}${req.path}`, { headers: req.headers });
    const body = (await res.json()) as { result?: string; messages?: unknown[] };
    const got = body.messages?.length ?? -1;
    if (body.result !== "success") throw new Error(`search ${JSON.stringify(query)} failed: ${JSON.stringify(body).slice(0, 300)}`);
    out.set(query, got);
  }
  return out;
}

/** Seeds a fresh store of `kind`, then measures searches on it; the store is dropped afterwards. */
export async function runSearchScenario(kind: StoreKind, settings: BenchSettings): Promise<SearchResult> {
  const fresh = await freshStore(kind);
  const queries = searchQueries();
  try {
    const org = await createOrg(fresh, USERS);
    // Subscribe everyone first (their periods start at message 1), then load the history while
    // no server runs, and start a new server on the loaded store, as after a restart.
    const setup = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, setUpThrough: true });
    let streamId: number;
    try {
      streamId = await createChannel(setup.url, org.users[0], "search bench", org.users);
    } finally {
      await setup.stop();
    }
    const seeded = await seedMessages(fresh, { realmId: org.realmId, streamId, senderIds: org.users.map((u) => u.id), count: settings.messages, seed: 7 }, queries);
    const profile = profileFlags(settings, `search-${kind}`);
    const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profile });
    try {
      const searchers = org.users.slice(1);
      const returned = await countResults(server.url, searchers[0], queries);
      const mixed = searchers.flatMap((user) => queries.map((q) => searchRequest(user, q)));
      const expectBody = '"result":"success"';
      const load = await loadServer(server, { requests: mixed, concurrency: settings.searchClients, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, expectBody });
      const perQuery: QueryResult[] = [];
      for (const query of queries) {
        const one = await loadServer(server, {
          requests: searchers.map((u) => searchRequest(u, query)),
          concurrency: 1,
          seconds: Math.max(settings.minAloneSeconds, settings.seconds / 4),
          warmupSeconds: Math.min(0.5, settings.warmupSeconds),
          expectBody,
        });
        if (one.errors > 0) throw new Error(`search for ${query} failed: ${one.firstError}`);
        const matches = seeded.matches.get(query) ?? 0;
        perQuery.push({ query, matches, returned: returned.get(query) ?? 0, expected: Math.min(50, matches), p50Ms: one.p50Ms, p99Ms: one.p99Ms });
      }
      return { store: kind, messages: settings.messages, seedSeconds: seeded.seconds, clients: settings.searchClients, load, perQuery };
    } finally {
      await server.stop();
    }
  } finally {
    await fresh.drop();
  }
}

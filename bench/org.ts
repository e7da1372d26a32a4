/**
 * The organization a scenario measures: users created through the trusted primitives before
 * the server starts (as test/helpers/fixtures.ts does), then channels and subscriptions
 * through the API of the running server, so subscription periods are opened exactly as in use.
 */
import { doCreateRealm } from "../src/actions/organization/bootstrap.ts";
import { doCreateUser } from "../src/actions/users/create.ts";
import { systemClock } from "../src/clock.ts";
import { ROLE } from "../src/model/roles.ts";
import { migrate, openStore } from "../src/store/db.ts";
import type { FreshStore } from "../test/helpers/stores.ts";

/** An account a client authenticates as. */
export type BenchUser = { id: number; email: string; apiKey: string };

/** The realm and its users; users[0] is the owner, the others members. */
export type BenchOrg = { realmId: number; users: BenchUser[] };

/** Migrates a fresh store and creates a realm with `count` users (no passwords: hashing is slow). */
export async function createOrg(store: FreshStore, count: number): Promise<BenchOrg> {
  const s = openStore({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  try {
    await migrate(s);
    const realm = await s.db.transaction().execute((tx) => doCreateRealm(tx, { clock: systemClock }, { name: "Bench Org", stringId: "" }));
    const users: BenchUser[] = [];
    for (let i = 0; i < count; i++) {
      const email = `user${i}@bench.example.com`;
      const role = i === 0 ? ROLE.owner : ROLE.member;
      const row = await s.db.transaction().execute((tx) => doCreateUser(tx, { realm, clock: systemClock }, { email, fullName: `Bench User ${i}`, role }));
      users.push({ id: row.id, email, apiKey: row.api_key });
    }
    return { realmId: realm.id, users };
  } finally {
    await s.close();
  }
}

/** The Basic authorization header value for a user. */
export function basicAuth(user: BenchUser): string {
  return `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`;
}

/** Calls the API once (form-encoded) and returns the success body; throws on any error. */
export async function apiCall(url: string, user: BenchUser, method: "GET" | "POST" | "PATCH", path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const query = new URLSearchParams(params).toString();
  const init: RequestInit = { method, headers: { authorization: basicAuth(user) } };
  let target = `${url}/api/v1${path}`;
  if (method === "GET") target += `?${query}`;
  else init.body = new URLSearchParams(params);
  const res = await fetch(target, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok || body.result !== "success") throw new Error(`${method} ${path} failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
  return body;
}

/** Creates a public channel with `subscribers` subscribed (by the owner) and returns its id. */
export async function createChannel(url: string, owner: BenchUser, name: string, subscribers: BenchUser[]): Promise<number> {
  await apiCall(url, owner, "POST", "/users/me/subscriptions", {
    subscriptions: JSON.stringify([{ name }]),
    principals: JSON.stringify(subscribers.map((u) => u.id)),
  });
  const body = await apiCall(url, owner, "GET", "/get_stream_id", { stream: name });
  return Number(body.stream_id);
}

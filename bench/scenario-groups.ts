/**
 * Scenario 3: the cost of user-group permissions (issue 4). 2,000 user groups in 200 chains
 * nested 10 deep (each group a direct subgroup of the one above it), members spread over them,
 * every group of a chain managed (can_manage_group) by the chain's top group. Measured: GET
 * /user_groups (all 2,000 groups), and PATCH /user_groups/{id} changing the description, made by
 * a member whose only way to can_manage_group is direct membership of the chain's bottom group,
 * 10 levels below the group holding the setting.
 */
import type { Insertable } from "kysely";
import { openStore } from "../src/store/db.ts";
import type { UserGroupTable } from "../src/store/schema/database.ts";
import { systemGroupsByName } from "../src/store/groups/user-groups.ts";
import { SYSTEM_GROUP } from "../src/model/roles.ts";
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import type { LoadRequest } from "./load.ts";
import { apiCall, basicAuth, createOrg, type BenchUser } from "./org.ts";
import { loadServer, profileFlags, startParley, type MeasuredLoad } from "./servers.ts";
import type { BenchSettings } from "./settings.ts";
import { prng } from "./text.ts";

/** One kind of request under the clients' load, and alone (one client). */
export type RequestFigures = { loaded: MeasuredLoad; alone: MeasuredLoad };

/** The group figures of one store. */
export type GroupsResult = { store: StoreKind; groups: number; depth: number; seedSeconds: number; clients: number; list: RequestFigures; manage: RequestFigures };

export const GROUP_CHAINS = 200;
export const GROUP_DEPTH = 10;
const USERS = 100;
// users[1..ACTORS] only belong to chain bottoms; the others are spread over every level.
const ACTORS = 20;
const SPREAD_MEMBERS_PER_GROUP = 3;
const ROWS_PER_STATEMENT = 500;

/** Ids of the seeded groups: chains[c][level], level 0 the top. */
type SeededGroups = { chains: number[][]; seconds: number };

const actorOf = (org: { users: BenchUser[] }, chain: number) => org.users[1 + (chain % ACTORS)];

/** Inserts the groups, their subgroup chains and members straight into a store no server runs on. */
async function seedGroups(fresh: { databaseUrl: string | null; dataDir: string }, realmId: number, users: BenchUser[]): Promise<SeededGroups> {
  const started = performance.now();
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  const random = prng(11);
  try {
    const chains = await store.db.transaction().execute(async (tx) => {
      const system = await systemGroupsByName(tx, realmId);
      const sys = (name: string) => system.get(name)?.id ?? null;
      const rows: Insertable<UserGroupTable>[] = [];
      for (let c = 0; c < GROUP_CHAINS; c++) {
        for (let level = 0; level < GROUP_DEPTH; level++) {
          rows.push({
            realm_id: realmId,
            name: `bench group ${c}.${level}`,
            description: "seeded",
            is_system_group: 0,
            deactivated: 0,
            date_created: Math.floor(Date.now() / 1000),
            creator_id: users[0].id,
            can_add_members_group_id: sys(SYSTEM_GROUP.administrators),
            can_join_group_id: sys(SYSTEM_GROUP.nobody),
            can_leave_group_id: sys(SYSTEM_GROUP.everyone),
            can_manage_group_id: null,
            can_mention_group_id: sys(SYSTEM_GROUP.everyone),
            can_remove_members_group_id: sys(SYSTEM_GROUP.nobody),
          });
        }
      }
      const ids: number[] = [];
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        const inserted = await tx.insertInto("user_groups").values(rows.slice(i, i + ROWS_PER_STATEMENT)).returning("id").execute();
        ids.push(...inserted.map((r) => r.id).sort((a, b) => a - b));
      }
      const chains = Array.from({ length: GROUP_CHAINS }, (_, c) => ids.slice(c * GROUP_DEPTH, (c + 1) * GROUP_DEPTH));
      const edges = chains.flatMap((chain) => chain.slice(1).map((sub, k) => ({ supergroup_id: chain[k], subgroup_id: sub })));
      const spread = users.slice(1 + ACTORS);
      const members = chains.flatMap((chain, c) => [
        { group_id: chain[GROUP_DEPTH - 1], user_id: actorOf({ users }, c).id },
        ...chain.flatMap((groupId) => {
          const picked = new Set(Array.from({ length: SPREAD_MEMBERS_PER_GROUP }, () => spread[Math.floor(random() * spread.length)].id));
          return [...picked].map((user_id) => ({ group_id: groupId, user_id }));
        }),
      ]);
      for (let i = 0; i < edges.length; i += ROWS_PER_STATEMENT) await tx.insertInto("user_group_subgroups").values(edges.slice(i, i + ROWS_PER_STATEMENT)).execute();
      for (let i = 0; i < members.length; i += ROWS_PER_STATEMENT) await tx.insertInto("user_group_members").values(members.slice(i, i + ROWS_PER_STATEMENT)).execute();
      for (const chain of chains) await tx.updateTable("user_groups").set({ can_manage_group_id: chain[0] }).where("id", "in", chain).execute();
      return chains;
    });
    return { chains, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}

const HEADERS = { "user-agent": "ParleyBench/1.0" };

function listRequest(user: BenchUser): LoadRequest {
  return { method: "GET", path: "/api/v1/user_groups", headers: { ...HEADERS, authorization: basicAuth(user) } };
}

/** Two description changes per group (A then, a whole round later, B), so each one writes. */
function manageRequests(org: { users: BenchUser[] }, chains: number[][]): LoadRequest[] {
  return ["A", "B"].flatMap((round) =>
    chains.flatMap((chain, c) =>
      chain.map((groupId) => ({
        method: "PATCH" as const,
        path: `/api/v1/user_groups/${groupId}`,
        headers: { ...HEADERS, authorization: basicAuth(actorOf(org, c)), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ description: `managed through ${GROUP_DEPTH} levels, round ${round}` }).toString(),
      })),
    ),
  );
}

/** Checks the seeded store answers as intended: every group listed, the nested manager allowed, an outsider refused. */
async function checkSetup(url: string, org: { users: BenchUser[] }, chains: number[][]): Promise<void> {
  const listed = (await apiCall(url, org.users[1], "GET", "/user_groups", {})).user_groups as unknown[];
  if (listed.length < GROUP_CHAINS * GROUP_DEPTH) throw new Error(`GET /user_groups listed ${listed.length} groups`);
  const top = chains[0][0];
  await apiCall(url, actorOf(org, 0), "PATCH", `/user_groups/${top}`, { description: "checked" });
  const refused = await apiCall(url, actorOf(org, 1), "PATCH", `/user_groups/${top}`, { description: "refused" }).then(() => false, () => true);
  if (!refused) throw new Error(`a user outside chain 0 could change group ${top}`);
}

/** Seeds a fresh store of `kind`, then measures the two group requests; the store is dropped afterwards. */
export async function runGroupsScenario(kind: StoreKind, settings: BenchSettings): Promise<GroupsResult> {
  const fresh = await freshStore(kind);
  try {
    const org = await createOrg(fresh, USERS);
    const seeded = await seedGroups(fresh, org.realmId, org.users);
    const server = await startParley({ dataDir: fresh.dataDir, databaseUrl: fresh.databaseUrl, nodeFlags: profileFlags(settings, `groups-${kind}`) });
    try {
      await checkSetup(server.url, org, seeded.chains);
      const measure = async (requests: LoadRequest[]): Promise<RequestFigures> => {
        const common = { requests, warmupSeconds: settings.warmupSeconds, expectBody: '"result":"success"' };
        const loaded = await loadServer(server, { ...common, concurrency: settings.searchClients, seconds: settings.seconds });
        const alone = await loadServer(server, { ...common, concurrency: 1, seconds: Math.max(settings.minAloneSeconds, settings.seconds / 2) });
        for (const run of [loaded, alone]) if (run.errors > 0) throw new Error(`${requests[0].method} ${requests[0].path} failed: ${run.firstError}`);
        return { loaded, alone };
      };
      const list = await measure(org.users.slice(1).map(listRequest));
      const manage = await measure(manageRequests(org, seeded.chains));
      return { store: kind, groups: GROUP_CHAINS * GROUP_DEPTH, depth: GROUP_DEPTH, seedSeconds: seeded.seconds, clients: settings.searchClients, list, manage };
    } finally {
      await server.stop();
    }
  } finally {
    await fresh.drop();
  }
}

/**
 * Property test of group-setting evaluation: random nested groups (DAGs, as upstream forbids
 * cycles) and random deactivated users in a real store, checked against a plain reference
 * computation. Seeded, so a failure names the seed that reproduces it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { doCreateRealm } from "../../src/actions/organization/bootstrap.ts";
import { doCreateUser } from "../../src/actions/users/create.ts";
import { systemClock } from "../../src/clock.ts";
import { effectiveMemberIds, isUserInGroup } from "../../src/store/groups/group-membership.ts";
import { ROLE } from "../../src/model/roles.ts";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import { addMembers, addSubgroups, loadGroupGraph } from "../../src/store/groups/user-groups.ts";
import { freshStore, STORES, type FreshStore } from "../helpers/stores.ts";

const CASES = Number(process.env.GROUP_PROPERTY_CASES ?? 25);
const BASE_SEED = Number(process.env.GROUP_PROPERTY_SEED ?? 20240601);

/** mulberry32: a tiny seeded PRNG with good enough spread for test data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Model = { groups: number[]; users: number[]; active: Set<number>; members: Map<number, number[]>; subgroups: Map<number, number[]> };

/** The reference: walk subgroups depth-first, collecting direct members that are active. */
function referenceMembers(model: Model, groupId: number, seen = new Set<number>()): Set<number> {
  const out = new Set<number>();
  if (seen.has(groupId)) return out;
  seen.add(groupId);
  for (const u of model.members.get(groupId) ?? []) if (model.active.has(u)) out.add(u);
  for (const g of model.subgroups.get(groupId) ?? []) for (const u of referenceMembers(model, g, seen)) out.add(u);
  return out;
}

/** Builds one random realm: users (some deactivated), groups, members and DAG subgroup edges. */
async function buildCase(store: Store, seed: number): Promise<Model> {
  const rand = prng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const realm = await store.db.transaction().execute((tx) => doCreateRealm(tx, { clock: systemClock }, { name: `Case ${seed}`, stringId: `case${seed}` }));
  const model: Model = { groups: [], users: [], active: new Set(), members: new Map(), subgroups: new Map() };
  const userCount = 1 + pick(10);
  await store.db.transaction().execute(async (tx) => {
    for (let i = 0; i < userCount; i++) {
      const role = [ROLE.owner, ROLE.administrator, ROLE.moderator, ROLE.member, ROLE.guest][pick(5)];
      const user = await doCreateUser(tx, { realm, clock: systemClock }, { email: `u${i}@case${seed}.test`, fullName: `U ${i}`, role });
      model.users.push(user.id);
      if (rand() < 0.3) await tx.updateTable("users").set({ is_active: 0 }).where("id", "=", user.id).execute();
      else model.active.add(user.id);
    }
    const groupCount = 1 + pick(12);
    for (let i = 0; i < groupCount; i++) {
      const row = await tx
        .insertInto("user_groups")
        .values({ realm_id: realm.id, name: rand() < 0.2 ? null : `g${i}`, description: "", is_system_group: 0, deactivated: 0, date_created: null, creator_id: null })
        .returning("id")
        .executeTakeFirstOrThrow();
      const members = model.users.filter(() => rand() < 0.3);
      // Edges only to groups created earlier: the graph stays acyclic, with shared subgroups (diamonds).
      const subgroups = model.groups.filter(() => rand() < 0.35);
      await addMembers(tx, row.id, members);
      await addSubgroups(tx, row.id, subgroups);
      model.groups.push(row.id);
      model.members.set(row.id, members);
      model.subgroups.set(row.id, subgroups);
    }
  });
  // The system groups doCreateRealm and doCreateUser filled in are part of the property too.
  const systemGraph = await loadGroupGraph(store.db, realm.id);
  const system = await store.db.selectFrom("user_groups").select("id").where("realm_id", "=", realm.id).where("is_system_group", "=", 1).execute();
  for (const { id } of system) {
    model.groups.push(id);
    const direct = await store.db.selectFrom("user_group_members").select("user_id").where("group_id", "=", id).execute();
    model.members.set(id, direct.map((d) => d.user_id));
    model.subgroups.set(id, systemGraph.subgroups.get(id) ?? []);
  }
  return model;
}

for (const kind of STORES) {
  describe(`group-setting evaluation matches the reference [${kind}]`, () => {
    let fresh: FreshStore;
    let store: Store;
    before(async () => {
      fresh = await freshStore(kind);
      store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
      await migrate(store);
    });
    after(async () => {
      await store?.close();
      await fresh?.drop();
    });

    test(`${CASES} random realms from seed ${BASE_SEED}`, async () => {
      for (let i = 0; i < CASES; i++) {
        const seed = BASE_SEED + i;
        const model = await buildCase(store, seed);
        for (const groupId of model.groups) {
          const expected = [...referenceMembers(model, groupId)].sort((a, b) => a - b);
          const where = `seed ${seed}, group ${groupId}`;
          assert.deepEqual(await effectiveMemberIds(store.db, groupId), expected, `effectiveMemberIds, ${where}`);
          for (const userId of model.users) {
            assert.equal(await isUserInGroup(store.db, groupId, userId), expected.includes(userId), `isUserInGroup(user ${userId}), ${where}`);
          }
        }
      }
    });
  });
}

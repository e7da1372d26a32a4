/** `user_group` events, one test per kind, and the include_deactivated_groups capability (FL 294). */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { createGroup, readGroup, uniqueName, systemGroups } from "./user-groups-support.ts";
import { describeEachStore } from "../helpers/suite.ts";

describeEachStore("user group events", (server) => {
  let f: TestServer["fixtures"];
  let sys: Record<string, number>;

  const register = (user: TestUser, includeDeactivated = false) =>
    registerQueue(server.api, user, { event_types: ["user_group"], client_capabilities: { notification_settings_null: false, include_deactivated_groups: includeDeactivated } });
  const poll = async (queue: Queue) => withoutIds(await pollEvents(server.api, queue));

  before(async () => {
    f = server.fixtures;
    sys = await systemGroups(server);
  });

  test("add: every user, guests and bots included, gets the new group", async () => {
    const queues = [await register(f.owner), await register(f.guest), await register(f.bot)];
    const id = await createGroup(server, { members: [f.member.id] }, f.member);
    const group = await readGroup(server, id);
    for (const queue of queues) assert.deepEqual(await poll(queue), [{ type: "user_group", op: "add", group }]);
  });

  test("update: name, description and each changed setting", async () => {
    const id = await createGroup(server, {}, f.member);
    const queue = await register(f.moderator);
    const name = uniqueName("renamed");
    const anon = { direct_members: [f.admin.id], direct_subgroups: [sys["role:moderators"]] };
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { name, description: "New", can_mention_group: { new: sys["role:members"] }, can_join_group: { new: anon } }));
    assert.deepEqual(await poll(queue), [
      { type: "user_group", op: "update", group_id: id, data: { name } },
      { type: "user_group", op: "update", group_id: id, data: { description: "New" } },
      { type: "user_group", op: "update", group_id: id, data: { can_join_group: anon } },
      { type: "user_group", op: "update", group_id: id, data: { can_mention_group: sys["role:members"] } },
    ]);
    // Unchanged values send nothing; a refused update sends nothing.
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { name, can_mention_group: { new: sys["role:members"] } }));
    expectError(await server.api.patch(f.member, `/user_groups/${id}`, { description: "x", can_mention_group: { new: sys["role:owners"] } }), "BAD_REQUEST", "'can_mention_group' setting cannot be set to 'role:owners' group.");
    assert.deepEqual(await poll(queue), []);
  });

  test("add_members and remove_members", async () => {
    const id = await createGroup(server, {}, f.member);
    const queue = await register(f.admin);
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/members`, { add: [f.owner.id, f.guest.id] }));
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/members`, { delete: [f.guest.id] }));
    assert.deepEqual(await poll(queue), [
      { type: "user_group", op: "add_members", group_id: id, user_ids: [f.owner.id, f.guest.id] },
      { type: "user_group", op: "remove_members", group_id: id, user_ids: [f.guest.id] },
    ]);
  });

  test("add_subgroups and remove_subgroups", async () => {
    const [id, sub] = [await createGroup(server, {}, f.member), await createGroup(server)];
    const queue = await register(f.admin);
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/subgroups`, { add: [sub] }));
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/members`, { delete_subgroups: [sub] }));
    assert.deepEqual(await poll(queue), [
      { type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [sub] },
      { type: "user_group", op: "remove_subgroups", group_id: id, direct_subgroup_ids: [sub] },
    ]);
  });

  test("deactivation: remove without include_deactivated_groups, update with it; later changes only to the latter", async () => {
    const id = await createGroup(server, {}, f.member);
    const [old, modern] = [await register(f.member), await register(f.member, true)];
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/deactivate`));
    assert.deepEqual(await poll(old), [{ type: "user_group", op: "remove", group_id: id }]);
    assert.deepEqual(await poll(modern), [{ type: "user_group", op: "update", group_id: id, data: { deactivated: true } }]);
    // Renames and membership changes of a deactivated group never reach clients without the capability.
    const name = uniqueName("retired");
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { name }));
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/members`, { add: [f.owner.id] }));
    assert.deepEqual(await poll(old), []);
    assert.deepEqual(await poll(modern), [
      { type: "user_group", op: "update", group_id: id, data: { name } },
      { type: "user_group", op: "add_members", group_id: id, user_ids: [f.owner.id] },
    ]);
    // Their register snapshot leaves the group out.
    const snapshot = (await registerQueue(server.api, f.member, { fetch_event_types: ["realm_user_groups"] })).state.realm_user_groups as Array<{ id: number }>;
    assert.ok(!snapshot.some((g) => g.id === id));
  });

  test("reactivation: add without include_deactivated_groups, update with it", async () => {
    const id = await createGroup(server, {}, f.member);
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/deactivate`));
    const [old, modern] = [await register(f.member), await register(f.member, true)];
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { deactivated: false }));
    const group = await readGroup(server, id);
    assert.equal(group.deactivated, false);
    assert.deepEqual(await poll(old), [{ type: "user_group", op: "add", group }]);
    assert.deepEqual(await poll(modern), [{ type: "user_group", op: "update", group_id: id, data: { deactivated: false } }]);
    // deactivated=true does nothing.
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { deactivated: true }));
    assert.deepEqual(await poll(old), []);
    assert.deepEqual(await poll(modern), []);
  });
});

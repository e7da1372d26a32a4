/** POST /user_groups/{id}/members and /subgroups, and the membership reads. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { createUser } from "../helpers/factories.ts";
import { createGroup, groupRows, readGroup, systemGroups } from "./user-groups-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("user group membership", (server) => {
  let f: TestServer["fixtures"];
  let sys: Record<string, number>;

  before(async () => {
    f = server.fixtures;
    sys = await systemGroups(server);
  });

  const members = (user: Credentials, id: number, params: Record<string, unknown>) => server.api.post(user, `/user_groups/${id}/members`, params);

  /** Expects a refusal that left every group table as it was. */
  async function refused(call: () => ReturnType<typeof members>, msg: string, code = "BAD_REQUEST") {
    const before = await groupRows(server);
    expectError(await call(), code, msg);
    assert.deepEqual(await groupRows(server), before);
  }

  test("adding and removing members needs can_add_members_group / can_remove_members_group", async () => {
    const id = await createGroup(server, {}, f.member);
    expectSuccess(await members(f.member, id, { add: [f.moderator.id, f.guest.id] }));
    assert.deepEqual((await readGroup(server, id)).members, [f.moderator.id, f.guest.id].sort((a, b) => a - b));
    expectError(await members(null as unknown as Credentials, id, { add: [f.admin.id] }), "UNAUTHORIZED", NO_AUTH, 401);
    await refused(() => members(f.guest, id, { add: [f.admin.id] }), "Not allowed for guest users");
    await refused(() => members(f.bot, id, { add: [f.admin.id] }), "This endpoint does not accept bot requests.");
    await refused(() => members(f.moderator, id, { add: [f.admin.id] }), "Insufficient permission");
    await refused(() => members(f.admin, id, { add: [f.admin.id] }), "Insufficient permission");
    // Removing others needs can_remove_members_group (nobody by default); managers may always.
    await refused(() => members(f.moderator, id, { delete: [f.guest.id] }), "Insufficient permission");
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_remove_members_group: { new: sys["role:moderators"] } }));
    expectSuccess(await members(f.moderator, id, { delete: [f.guest.id] }));
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_add_members_group: { new: sys["role:administrators"] } }));
    expectSuccess(await members(f.admin, id, { add: [f.admin.id] }));
    expectSuccess(await members(f.owner, id, { add: [f.owner.id] }));
    assert.deepEqual((await readGroup(server, id)).members, [f.owner.id, f.admin.id, f.moderator.id].sort((a, b) => a - b));
  });

  test("membership validation: unknown, deactivated, duplicate and absent users; nothing to do", async () => {
    const id = await createGroup(server, { members: [f.moderator.id] }, f.member);
    const gone = await createUser(server);
    expectSuccess(await server.api.delete(f.owner, `/users/${gone.id}`));
    await refused(() => members(f.member, id, {}), 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    await refused(() => members(f.member, id, { add: [] }), 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    await refused(() => members(f.member, id, { add: "x" }), "add is not valid JSON");
    await refused(() => members(f.member, id, { add: [99999] }), "Invalid user ID: 99999");
    await refused(() => members(f.member, id, { add: [gone.id] }), `Invalid user ID: ${gone.id}`);
    await refused(() => members(f.member, id, { add: [f.moderator.id] }), `User ${f.moderator.id} is already a member of this group`);
    await refused(() => members(f.member, id, { delete: [f.admin.id] }), `There is no member '${f.admin.id}' in this user group`);
    await refused(() => members(f.member, 99999, { add: [f.admin.id] }), "Invalid user group");
    await refused(() => members(f.owner, sys["role:members"], { add: [f.admin.id] }), "Insufficient permission");
    // One refused step undoes the others.
    await refused(() => members(f.member, id, { add: [f.admin.id], delete: [f.owner.id] }), `There is no member '${f.owner.id}' in this user group`);
    assert.deepEqual((await readGroup(server, id)).members, [f.moderator.id]);
  });

  test("joining needs can_join_group, leaving can_leave_group", async () => {
    const id = await createGroup(server, { members: [f.moderator.id] }, f.owner);
    await refused(() => members(f.member, id, { add: [f.member.id] }), "Insufficient permission");
    expectSuccess(await server.api.patch(f.owner, `/user_groups/${id}`, { can_join_group: { new: sys["role:members"] } }));
    expectSuccess(await members(f.member, id, { add: [f.member.id] }));
    // can_join_group is only for oneself.
    await refused(() => members(f.member, id, { add: [f.admin.id] }), "Insufficient permission");
    // Guests cannot use the endpoint at all (Zulip's require_member_or_admin).
    await refused(() => members(f.guest, id, { add: [f.guest.id] }), "Not allowed for guest users");
    // can_leave_group defaults to role:everyone.
    expectSuccess(await members(f.member, id, { delete: [f.member.id] }));
    expectSuccess(await server.api.patch(f.owner, `/user_groups/${id}`, { can_leave_group: { new: sys["role:nobody"] } }));
    await refused(() => members(f.moderator, id, { delete: [f.moderator.id] }), "Insufficient permission");
    assert.deepEqual((await readGroup(server, id)).members, [f.moderator.id]);
  });

  test("subgroups: add needs can_add_members_group, delete can_manage_group; no cycles", async () => {
    const [a, b, c] = [await createGroup(server, {}, f.member), await createGroup(server), await createGroup(server)];
    expectSuccess(await members(f.member, a, { add_subgroups: [b] }));
    expectSuccess(await server.api.post(f.owner, `/user_groups/${b}/subgroups`, { add: [c] }));
    assert.deepEqual((await readGroup(server, a)).direct_subgroup_ids, [b]);
    await refused(() => server.api.post(f.owner, `/user_groups/${c}/subgroups`, { add: [a] }), `User group ${c} is already a subgroup of one of the passed subgroups.`);
    await refused(() => server.api.post(f.owner, `/user_groups/${c}/subgroups`, { add: [c] }), `User group ${c} is already a subgroup of one of the passed subgroups.`);
    await refused(() => members(f.member, a, { add_subgroups: [b] }), `User group ${b} is already a subgroup of this group.`);
    await refused(() => members(f.member, a, { add_subgroups: [99999] }), "Invalid user group ID: 99999");
    await refused(() => members(f.member, a, { delete_subgroups: [c] }), `User group ${c} is not a subgroup of this group.`);
    await refused(() => server.api.post(f.member, `/user_groups/${a}/subgroups`, {}), 'Nothing to do. Specify at least one of "add" or "delete".');
    await refused(() => server.api.post(f.moderator, `/user_groups/${a}/subgroups`, { add: [c] }), "Insufficient permission");
    await refused(() => server.api.post(f.guest, `/user_groups/${a}/subgroups`, { add: [c] }), "Not allowed for guest users");
    await refused(() => server.api.post(f.bot, `/user_groups/${a}/subgroups`, { add: [c] }), "This endpoint does not accept bot requests.");
    // With add rights but not manage rights, subgroups can be added but not removed.
    expectSuccess(await server.api.patch(f.member, `/user_groups/${a}`, { can_add_members_group: { new: sys["role:moderators"] } }));
    expectSuccess(await server.api.post(f.moderator, `/user_groups/${a}/subgroups`, { add: [sys["role:owners"]] }));
    await refused(() => server.api.post(f.moderator, `/user_groups/${a}/subgroups`, { delete: [sys["role:owners"]] }), "Insufficient permission");
    expectSuccess(await server.api.post(f.member, `/user_groups/${a}/subgroups`, { delete: [sys["role:owners"]] }));
    expectSuccess(await members(f.member, a, { delete_subgroups: [b] }));
    assert.deepEqual((await readGroup(server, a)).direct_subgroup_ids, []);
  });

  test("the creator adds subgroups at creation regardless of the group's permissions", async () => {
    const sub = await createGroup(server);
    const id = await createGroup(server, { subgroups: [sub], can_manage_group: sys["role:nobody"], can_add_members_group: sys["role:nobody"] }, f.member);
    assert.deepEqual((await readGroup(server, id)).direct_subgroup_ids, [sub]);
    await refused(() => members(f.member, id, { add_subgroups: [sys["role:owners"]] }), "Insufficient permission");
  });

  test("a deactivated group's membership stays editable (FL 391)", async () => {
    const id = await createGroup(server, {}, f.member);
    const sub = await createGroup(server);
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/deactivate`));
    expectSuccess(await members(f.member, id, { add: [f.admin.id], add_subgroups: [sub] }));
    expectSuccess(await members(f.member, id, { delete: [f.admin.id], delete_subgroups: [sub] }));
    const group = await readGroup(server, id);
    assert.deepEqual(group.members, []);
    assert.deepEqual(group.direct_subgroup_ids, []);
  });

  test("reads: members (recursive or direct), membership of one user, subgroups", async () => {
    const person = await createUser(server);
    const [top, mid, low] = [await createGroup(server, { members: [f.member.id] }), await createGroup(server, { members: [f.moderator.id, person.id] }), await createGroup(server, { members: [f.admin.id] })];
    expectSuccess(await members(f.owner, top, { add_subgroups: [mid] }));
    expectSuccess(await members(f.owner, mid, { add_subgroups: [low] }));
    const get = (path: string, params: Record<string, unknown> = {}, user: Credentials = f.member) => server.api.get(user, `/user_groups/${top}${path}`, params);
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
    assert.deepEqual(expectSuccess(await get("/members")).members, sorted([f.member.id, f.moderator.id, person.id, f.admin.id]));
    assert.deepEqual(expectSuccess(await get("/members", { direct_member_only: true })).members, [f.member.id]);
    assert.deepEqual(expectSuccess(await get("/subgroups")).subgroups, sorted([mid, low]));
    assert.deepEqual(expectSuccess(await get("/subgroups", { direct_subgroup_only: true })).subgroups, [mid]);
    assert.equal(expectSuccess(await get(`/members/${f.admin.id}`)).is_user_group_member, true);
    assert.equal(expectSuccess(await get(`/members/${f.admin.id}`, { direct_member_only: true })).is_user_group_member, false);
    assert.equal(expectSuccess(await get(`/members/${f.owner.id}`)).is_user_group_member, false);
    expectError(await get(`/members/99999`), "BAD_REQUEST", "No such user");
    expectError(await get(`/members/${f.bot.id}`), "BAD_REQUEST", "No such user");
    // Deactivated users are never members.
    expectSuccess(await server.api.delete(f.owner, `/users/${person.id}`));
    expectError(await get(`/members/${person.id}`), "BAD_REQUEST", "User is deactivated");
    assert.deepEqual(expectSuccess(await get("/members")).members, sorted([f.member.id, f.moderator.id, f.admin.id]));
    assert.deepEqual((await readGroup(server, mid)).members, [f.moderator.id]);
    for (const path of ["/members", "/subgroups", `/members/${f.member.id}`]) {
      expectError(await get(path, {}, f.guest), "BAD_REQUEST", "Not allowed for guest users");
      expectError(await get(path, {}, f.bot), "BAD_REQUEST", "This endpoint does not accept bot requests.");
      expectError(await server.api.get(null, `/user_groups/${top}${path}`), "UNAUTHORIZED", NO_AUTH, 401);
      expectError(await server.api.get(f.member, `/user_groups/99999${path}`), "BAD_REQUEST", "Invalid user group");
    }
  });
});

/** POST /user_groups/create, GET /user_groups, PATCH /user_groups/{id}, POST .../deactivate. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { setRealmSettings } from "../helpers/db.ts";
import { createUser } from "../helpers/factories.ts";
import { createGroup, groupRows, readGroup, uniqueName, systemGroups } from "./user-groups-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("user groups", (server) => {
  let f: TestServer["fixtures"];
  let sys: Record<string, number>;

  before(async () => {
    f = server.fixtures;
    sys = await systemGroups(server);
  });

  /** Expects a refusal and that no group rows were written. */
  async function refusedCreate(user: typeof f.owner, params: Record<string, unknown>, code: string, msg: string) {
    const before = await groupRows(server);
    const res = await server.api.post(user, "/user_groups/create", { name: uniqueName(), description: "d", members: [], ...params });
    expectError(res, code, msg);
    assert.deepEqual(await groupRows(server), before);
  }

  test("create: defaults, date_created, creator_id, members", async () => {
    const name = uniqueName("backend");
    const body = expectSuccess(await server.api.post(f.member, "/user_groups/create", { name, description: "Backend team", members: [f.member.id, f.moderator.id] }));
    const group = await readGroup(server, body.group_id);
    assert.equal(group.name, name);
    assert.equal(group.description, "Backend team");
    assert.equal(group.creator_id, f.member.id);
    assert.equal(typeof group.date_created, "number");
    assert.deepEqual(group.members, [f.moderator.id, f.member.id].sort((a, b) => a - b));
    assert.deepEqual(group.direct_subgroup_ids, []);
    assert.equal(group.is_system_group, false);
    assert.equal(group.deactivated, false);
    const creator = { direct_members: [f.member.id], direct_subgroups: [] };
    assert.deepEqual(group.can_manage_group, creator);
    assert.deepEqual(group.can_add_members_group, creator);
    assert.equal(group.can_join_group, sys["role:nobody"]);
    assert.equal(group.can_leave_group, sys["role:everyone"]);
    assert.equal(group.can_mention_group, sys["role:everyone"]);
    assert.equal(group.can_remove_members_group, sys["role:nobody"]);
  });

  test("create: settings in both forms, canonical forms, subgroups", async () => {
    const sub = await createGroup(server);
    const id = await createGroup(server, {
      subgroups: [sub],
      can_manage_group: { direct_members: [f.admin.id], direct_subgroups: [sys["role:moderators"]] },
      can_mention_group: sys["role:members"],
      can_join_group: { direct_members: [], direct_subgroups: [sys["role:members"]] },
      can_leave_group: { direct_members: [], direct_subgroups: [] },
    });
    const group = await readGroup(server, id);
    assert.deepEqual(group.direct_subgroup_ids, [sub]);
    assert.deepEqual(group.can_manage_group, { direct_members: [f.admin.id], direct_subgroups: [sys["role:moderators"]] });
    assert.equal(group.can_mention_group, sys["role:members"]);
    assert.equal(group.can_join_group, sys["role:members"]);
    assert.equal(group.can_leave_group, sys["role:nobody"]);
  });

  test("create: no auth, guests, bots and users without can_create_groups are refused", async () => {
    expectError(await server.api.post(null, "/user_groups/create", { name: "x", description: "d", members: [] }), "UNAUTHORIZED", NO_AUTH, 401);
    await refusedCreate(f.guest, {}, "BAD_REQUEST", "Not allowed for guest users");
    await refusedCreate(f.bot, {}, "BAD_REQUEST", "This endpoint does not accept bot requests.");
    await setRealmSettings(server, { can_create_groups: sys["role:administrators"] });
    try {
      await refusedCreate(f.member, {}, "BAD_REQUEST", "Insufficient permission");
      await refusedCreate(f.moderator, {}, "BAD_REQUEST", "Insufficient permission");
      await createGroup(server, {}, f.admin);
      await createGroup(server, {}, f.owner);
    } finally {
      await setRealmSettings(server, { can_create_groups: sys["role:members"] });
    }
  });

  test("create: validation errors write nothing", async () => {
    const gone = await createUser(server);
    expectSuccess(await server.api.delete(f.owner, `/users/${gone.id}`));
    const existing = uniqueName("Taken");
    await createGroup(server, { name: existing });
    const off = await createGroup(server);
    expectSuccess(await server.api.post(f.owner, `/user_groups/${off}/deactivate`));
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ name: undefined }, "REQUEST_VARIABLE_MISSING", "Missing 'name' argument"],
      [{ members: undefined }, "REQUEST_VARIABLE_MISSING", "Missing 'members' argument"],
      [{ members: "5" }, "BAD_REQUEST", "members is not a list"],
      [{ members: [99999] }, "BAD_REQUEST", "Invalid user ID: 99999"],
      [{ members: [gone.id] }, "BAD_REQUEST", `Invalid user ID: ${gone.id}`],
      [{ name: "  " }, "BAD_REQUEST", "User group name can't be empty!"],
      [{ name: "x".repeat(101) }, "BAD_REQUEST", "User group name cannot exceed 100 characters."],
      [{ name: "role:mine" }, "BAD_REQUEST", "User group name cannot start with 'role:'."],
      [{ name: "@team" }, "BAD_REQUEST", "User group name cannot start with '@'."],
      [{ name: existing.toUpperCase() }, "BAD_REQUEST", `User group '${existing.toUpperCase()}' already exists.`],
      [{ can_manage_group: sys["role:everyone"] }, "BAD_REQUEST", "'can_manage_group' setting cannot be set to 'role:everyone' group."],
      [{ can_manage_group: sys["role:internet"] }, "BAD_REQUEST", "'can_manage_group' setting cannot be set to 'role:internet' group."],
      [{ can_mention_group: sys["role:owners"] }, "BAD_REQUEST", "'can_mention_group' setting cannot be set to 'role:owners' group."],
      [{ can_mention_group: sys["role:internet"] }, "BAD_REQUEST", "'can_mention_group' setting cannot be set to 'role:internet' group."],
      [{ can_join_group: sys["role:everyone"] }, "BAD_REQUEST", "'can_join_group' setting cannot be set to 'role:everyone' group."],
      [{ can_leave_group: sys["role:internet"] }, "BAD_REQUEST", "'can_leave_group' setting cannot be set to 'role:internet' group."],
      [{ can_add_members_group: sys["role:everyone"] }, "BAD_REQUEST", "'can_add_members_group' setting cannot be set to 'role:everyone' group."],
      [{ can_remove_members_group: sys["role:everyone"] }, "BAD_REQUEST", "'can_remove_members_group' setting cannot be set to 'role:everyone' group."],
      [{ can_manage_group: 99999 }, "BAD_REQUEST", "Invalid user group ID: 99999"],
      [{ can_manage_group: { direct_members: [gone.id], direct_subgroups: [] } }, "BAD_REQUEST", `Invalid user ID: ${gone.id}`],
      [{ can_mention_group: off }, "BAD_REQUEST", "User group is deactivated."],
      [{ subgroups: [off] }, "BAD_REQUEST", "User group is deactivated."],
      [{ subgroups: [99999] }, "BAD_REQUEST", "Invalid user group ID: 99999"],
    ];
    for (const [params, code, msg] of cases) await refusedCreate(f.member, params, code, msg);
  });

  test("list: members and administrators only; deactivated groups on request", async () => {
    const off = await createGroup(server);
    expectSuccess(await server.api.post(f.owner, `/user_groups/${off}/deactivate`));
    const plain = expectSuccess(await server.api.get(f.member, "/user_groups")).user_groups;
    assert.ok(plain.every((g: { deactivated: boolean }) => !g.deactivated));
    assert.ok(plain.some((g: { name: string }) => g.name === "role:members"));
    for (const key of ["include_deactivated_groups", "allow_deactivated"]) {
      const all = expectSuccess(await server.api.get(f.moderator, "/user_groups", { [key]: true })).user_groups;
      assert.ok(all.some((g: { id: number; deactivated: boolean }) => g.id === off && g.deactivated));
    }
    expectError(await server.api.get(null, "/user_groups"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(f.guest, "/user_groups"), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await server.api.get(f.bot, "/user_groups"), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await server.api.get(f.member, "/user_groups", { include_deactivated_groups: "maybe" }), "BAD_REQUEST", "include_deactivated_groups is not a boolean");
  });

  test("update: name and description by a manager; refusals write nothing", async () => {
    const id = await createGroup(server, {}, f.member);
    const name = uniqueName("renamed");
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { name, description: "New" }));
    let group = await readGroup(server, id);
    assert.equal(group.name, name);
    assert.equal(group.description, "New");
    // The realm's can_manage_all_groups (owners by default) manages every group.
    expectSuccess(await server.api.patch(f.owner, `/user_groups/${id}`, { description: "By owner" }));
    const taken = uniqueName("taken");
    await createGroup(server, { name: taken });
    const cases: Array<[typeof f.owner, Record<string, unknown>, string]> = [
      [f.member, {}, "No new data supplied"],
      [f.guest, { name: "x" }, "Not allowed for guest users"],
      [f.bot, { name: "x" }, "This endpoint does not accept bot requests."],
      [f.admin, { name: "x" }, "Insufficient permission"],
      [f.moderator, { name: "x" }, "Insufficient permission"],
      [f.member, { name: taken }, `User group '${taken}' already exists.`],
      [f.member, { name: "" }, "User group name can't be empty!"],
      [f.member, { name: "channel:x" }, "User group name cannot start with 'channel:'."],
    ];
    for (const [user, params, msg] of cases) {
      const before = await groupRows(server);
      expectError(await server.api.patch(user, `/user_groups/${id}`, params), "BAD_REQUEST", msg);
      assert.deepEqual(await groupRows(server), before);
    }
    group = await readGroup(server, id);
    assert.equal(group.name, name);
    assert.equal(group.description, "By owner");
    expectError(await server.api.patch(null, `/user_groups/${id}`, { name: "x" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.patch(f.owner, "/user_groups/99999", { name: "x" }), "BAD_REQUEST", "Invalid user group");
    expectError(await server.api.patch(f.owner, `/user_groups/${sys["role:members"]}`, { name: "x" }), "BAD_REQUEST", "Insufficient permission");
  });

  test("update: settings as {new, old}; mismatched old refused; can_mention_group only as an update object", async () => {
    const id = await createGroup(server, {}, f.member);
    const change = (value: unknown) => ({ can_mention_group: value });
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, change({ new: sys["role:members"], old: sys["role:everyone"] })));
    assert.equal((await readGroup(server, id)).can_mention_group, sys["role:members"]);
    const before = await groupRows(server);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [change({ new: sys["role:moderators"], old: sys["role:everyone"] }), "'old' value does not match the expected value."],
      [change(sys["role:moderators"]), "can_mention_group is not a dict"],
      [change({ new: sys["role:owners"] }), "'can_mention_group' setting cannot be set to 'role:owners' group."],
      [{ can_manage_group: { new: sys["role:everyone"] } }, "'can_manage_group' setting cannot be set to 'role:everyone' group."],
      [{ can_join_group: { new: { direct_members: [99999], direct_subgroups: [] } } }, "Invalid user ID: 99999"],
    ];
    for (const [params, msg] of refusals) expectError(await server.api.patch(f.member, `/user_groups/${id}`, params), "BAD_REQUEST", msg);
    assert.deepEqual(await groupRows(server), before);
    assert.equal((await readGroup(server, id)).can_mention_group, sys["role:members"]);
    // `old` in either form, compared ignoring order.
    const anon = { direct_members: [f.owner.id, f.member.id], direct_subgroups: [sys["role:moderators"]] };
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_leave_group: { new: anon } }));
    const reordered = { direct_members: [f.member.id, f.owner.id], direct_subgroups: [sys["role:moderators"]] };
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_leave_group: { new: sys["role:members"], old: reordered } }));
    assert.equal((await readGroup(server, id)).can_leave_group, sys["role:members"]);
  });

  test("update: replaced anonymous setting groups are removed", async () => {
    const id = await createGroup(server, {}, f.member);
    const baseline = await groupRows(server);
    for (const members of [[f.member.id, f.owner.id], [f.admin.id, f.owner.id], [f.moderator.id, f.owner.id]]) {
      expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_join_group: { new: { direct_members: members, direct_subgroups: [] } } }));
    }
    assert.equal((await groupRows(server)).user_groups, baseline.user_groups + 1);
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_join_group: { new: sys["role:members"] } }));
    // can_manage_group's creator group is replaced too.
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { can_manage_group: { new: sys["role:members"] } }));
    const after = await groupRows(server);
    assert.equal(after.user_groups, baseline.user_groups - 1);
    assert.equal(after.user_group_members, baseline.user_group_members - 1);
  });

  test("deactivate: needs can_manage_group; refused while in use; deactivated groups stay editable", async () => {
    const id = await createGroup(server, { members: [f.member.id] }, f.member);
    expectError(await server.api.post(null, `/user_groups/${id}/deactivate`), "UNAUTHORIZED", NO_AUTH, 401);
    for (const user of [f.guest, f.moderator, f.admin]) expectError(await server.api.post(user, `/user_groups/${id}/deactivate`), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.post(f.owner, `/user_groups/${sys["role:members"]}/deactivate`), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.post(f.owner, "/user_groups/99999/deactivate"), "BAD_REQUEST", "Invalid user group");

    const user = await createGroup(server, { subgroups: [id], can_mention_group: id });
    const res = await server.api.post(f.member, `/user_groups/${id}/deactivate`);
    expectError(res, "CANNOT_DEACTIVATE_GROUP_IN_USE", "Cannot deactivate user group in use.");
    assert.deepEqual(res.body.objections, [
      { type: "subgroup", supergroup_ids: [user] },
      { type: "user_group", group_id: user, settings: ["can_mention_group"] },
    ]);
    await setRealmSettings(server, { can_create_groups: id });
    try {
      const realmRes = await server.api.post(f.owner, `/user_groups/${id}/deactivate`);
      assert.deepEqual(realmRes.body.objections.at(-1), { type: "realm", settings: ["can_create_groups"] });
    } finally {
      await setRealmSettings(server, { can_create_groups: sys["role:members"] });
    }
    expectSuccess(await server.api.post(f.owner, `/user_groups/${user}/members`, { delete_subgroups: [id] }));
    expectSuccess(await server.api.patch(f.owner, `/user_groups/${user}`, { can_mention_group: { new: sys["role:everyone"] } }));
    expectSuccess(await server.api.post(f.member, `/user_groups/${id}/deactivate`));
    assert.equal((await readGroup(server, id)).deactivated, true);
    expectError(await server.api.post(f.member, `/user_groups/${id}/deactivate`), "BAD_REQUEST", "User group is deactivated.");

    // Not usable as a setting value or subgroup; its own settings and name stay editable.
    expectError(await server.api.patch(f.owner, `/user_groups/${user}`, { can_mention_group: { new: id } }), "BAD_REQUEST", "User group is deactivated.");
    expectError(await server.api.post(f.owner, `/user_groups/${user}/subgroups`, { add: [id] }), "BAD_REQUEST", "User group is deactivated.");
    expectError(await server.api.get(f.member, `/user_groups/${id}/members`), "BAD_REQUEST", "User group is deactivated.");
    const name = uniqueName("retired");
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { name, can_join_group: { new: sys["role:members"] } }));
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { deactivated: true }));
    let group = await readGroup(server, id);
    assert.equal(group.name, name);
    assert.equal(group.deactivated, true);
    assert.equal(group.can_join_group, sys["role:members"]);
    expectError(await server.api.patch(f.admin, `/user_groups/${id}`, { deactivated: false }), "BAD_REQUEST", "Insufficient permission");
    expectSuccess(await server.api.patch(f.member, `/user_groups/${id}`, { deactivated: false }));
    group = await readGroup(server, id);
    assert.equal(group.deactivated, false);
    expectSuccess(await server.api.patch(f.owner, `/user_groups/${user}`, { can_mention_group: { new: id } }));
  });
});

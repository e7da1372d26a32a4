/** Helpers shared by the user-group suites: creating groups, reading them back, counting rows. */
import assert from "node:assert/strict";
import { expectSuccess, type Credentials, type Params } from "../helpers/client.ts";
import { countRows, groupId } from "../helpers/db.ts";
import type { TestServer } from "../helpers/server.ts";

let counter = 0;

/** A fresh group name for one test. */
export function uniqueName(prefix = "group"): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Creates a group as `user` (the owner by default) and returns its id. */
export async function createGroup(server: TestServer, params: Params = {}, user: Credentials = server.fixtures.owner): Promise<number> {
  const body = expectSuccess(
    await server.api.post(user, "/user_groups/create", { name: uniqueName(), description: "A group", members: [], ...params }),
  );
  assert.equal(typeof body.group_id, "number");
  return body.group_id;
}

/** A group as GET /user_groups (with deactivated groups) shows it. */
export async function readGroup(server: TestServer, id: number): Promise<Record<string, unknown>> {
  const body = expectSuccess(await server.api.get(server.fixtures.owner, "/user_groups", { include_deactivated_groups: true }));
  const group = body.user_groups.find((g: { id: number }) => g.id === id);
  assert.ok(group, `group ${id} is listed`);
  return group;
}

/** Row counts of the group tables, for "a refused call wrote nothing". */
export function groupRows(server: TestServer): Promise<Record<string, number>> {
  return countRows(server, ["user_groups", "user_group_members", "user_group_subgroups"]);
}

/** Ids of system groups by name. */
export async function systemGroups(server: TestServer): Promise<Record<string, number>> {
  const names = ["role:nobody", "role:owners", "role:administrators", "role:moderators", "role:fullmembers", "role:members", "role:everyone", "role:internet"];
  const out: Record<string, number> = {};
  for (const name of names) out[name] = await groupId(server, name);
  return out;
}

/** PATCH /users/{user_id} and PATCH /users/{email}: name, role, custom profile data, email. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { directMemberIds, systemGroupsByName } from "../../src/store/groups/user-groups.ts";
import { createUser } from "../helpers/factories.ts";
import { addProfileField, readUser, setCanChangeUserEmails, withStore } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN, NOT_OWNER } from "../helpers/errors.ts";

describeEachStore("users: updating", (server) => {
  /** Names of the system groups the user is a direct member of. */
  async function systemGroupsOf(userId: number): Promise<string[]> {
    return withStore(server, async (db) => {
      const names: string[] = [];
      for (const [name, group] of await systemGroupsByName(db, server.fixtures.realmId)) {
        if ((await directMemberIds(db, group.id)).includes(userId)) names.push(name);
      }
      return names.sort();
    });
  }

  test("an administrator renames a user; an empty name changes nothing", async () => {
    const person = await createUser(server);
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { full_name: "  Renamed Person " }));
    assert.equal((await readUser(server, person.id)).full_name, "Renamed Person");
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { full_name: "" }));
    assert.equal((await readUser(server, person.id)).full_name, "Renamed Person");
  });

  test("name validation errors", async () => {
    const { admin, member } = server.fixtures;
    const patch = (full_name: string) => server.api.patch(admin, `/users/${member.id}`, { full_name });
    expectError(await patch("A"), "BAD_REQUEST", "Name too short!");
    expectError(await patch("a".repeat(101)), "BAD_REQUEST", "Name too long!");
    expectError(await patch("Opheli*"), "BAD_REQUEST", "Invalid characters in name!");
    expectError(await patch("iago|72"), "BAD_REQUEST", "Invalid format!");
    assert.equal((await readUser(server, member.id)).full_name, "Max Member");
  });

  test("only administrators update others; unknown users refused; no credentials refused", async () => {
    const { member, moderator, guest, admin } = server.fixtures;
    for (const who of [member, moderator, guest]) {
      expectError(await server.api.patch(who, `/users/${admin.id}`, { full_name: "Hacked Name" }), "BAD_REQUEST", "Insufficient permission");
    }
    expectError(await server.api.patch(member, `/users/${member.id}`, { full_name: "Self Rename" }), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.patch(admin, "/users/99999", { full_name: "Nobody Here" }), "BAD_REQUEST", "No such user");
    expectError(await server.api.patch(null, `/users/${member.id}`, { full_name: "Anon Name" }), "UNAUTHORIZED", NO_AUTH, 401);
    assert.equal((await readUser(server, admin.id)).full_name, "Adam Admin");
    assert.equal((await readUser(server, member.id)).full_name, "Max Member");
  });

  test("a role change moves the user between system groups", async () => {
    const person = await createUser(server);
    assert.deepEqual(await systemGroupsOf(person.id), ["role:fullmembers", "role:members"]);
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { role: 300 }));
    assert.equal((await readUser(server, person.id)).role, 300);
    assert.deepEqual(await systemGroupsOf(person.id), ["role:moderators"]);
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { role: 600 }));
    assert.deepEqual(await systemGroupsOf(person.id), ["role:everyone"]);
    assert.equal((await readUser(server, person.id)).is_guest, true);
  });

  test("role validation: values, owner role only for owners, last owner, guests never administrators", async () => {
    const { owner, admin } = server.fixtures;
    const person = await createUser(server);
    expectError(await server.api.patch(admin, `/users/${person.id}`, { role: 500 }), "BAD_REQUEST", "Invalid role");
    expectError(await server.api.patch(admin, `/users/${person.id}`, { role: "boss" }), "BAD_REQUEST", "role is not an integer");
    expectError(await server.api.patch(admin, `/users/${person.id}`, { role: 100 }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(await server.api.patch(admin, `/users/${owner.id}`, { role: 400 }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(
      await server.api.patch(owner, `/users/${owner.id}`, { role: 200 }),
      "BAD_REQUEST",
      "The owner permission cannot be removed from the only organization owner.",
    );
    expectSuccess(await server.api.patch(owner, `/users/${person.id}`, { role: 100 }));
    assert.equal((await readUser(server, person.id)).is_owner, true);
    // With a second owner, the first may step down (and is restored after).
    expectSuccess(await server.api.patch(person, `/users/${owner.id}`, { role: 200 }));
    expectSuccess(await server.api.patch(person, `/users/${owner.id}`, { role: 100 }));
    expectSuccess(await server.api.patch(owner, `/users/${person.id}`, { role: 600 }));
    expectError(await server.api.patch(owner, `/users/${person.id}`, { role: 200 }), "BAD_REQUEST", "Guests cannot be organization administrators");
    expectError(await server.api.patch(owner, `/users/${person.id}`, { role: 100 }), "BAD_REQUEST", "Guests cannot be organization administrators");
    assert.equal((await readUser(server, person.id)).role, 600);
    assert.deepEqual(await systemGroupsOf(person.id), ["role:everyone"]);
    expectSuccess(await server.api.patch(owner, `/users/${person.id}`, { role: 300 }));
  });

  test("a bot's owner may rename it but not change its role", async () => {
    const { member, bot } = server.fixtures;
    expectSuccess(await server.api.patch(member, `/users/${bot.id}`, { full_name: "Helper Bot Two" }));
    assert.equal((await readUser(server, bot.id)).full_name, "Helper Bot Two");
    expectError(await server.api.patch(member, `/users/${bot.id}`, { role: 200 }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectSuccess(await server.api.patch(member, `/users/${bot.id}`, { full_name: "Helper Bot" }));
  });

  test("profile_data: each field type validated; null or empty clears", async () => {
    const { admin, member, moderator } = server.fixtures;
    const person = await createUser(server);
    const short = await addProfileField(server, { name: "Phone number", fieldType: 1 });
    const long = await addProfileField(server, { name: "Biography", fieldType: 2 });
    const select = await addProfileField(server, { name: "Favorite editor", fieldType: 3, fieldData: JSON.stringify({ "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } }) });
    const date = await addProfileField(server, { name: "Birthday", fieldType: 4 });
    const url = await addProfileField(server, { name: "Website", fieldType: 5 });
    const people = await addProfileField(server, { name: "Mentor", fieldType: 6 });
    const ext = await addProfileField(server, { name: "GitHub username", fieldType: 7 });
    const pronouns = await addProfileField(server, { name: "Pronouns", fieldType: 8 });
    const values = [
      { id: short.id, value: "+1-555" }, { id: long.id, value: "Writes *code*" }, { id: select.id, value: "1" },
      { id: date.id, value: "1909-03-05" }, { id: url.id, value: "https://zulip.com" }, { id: people.id, value: [member.id, moderator.id] },
      { id: ext.id, value: "octocat" }, { id: pronouns.id, value: "she/her" },
    ];
    expectSuccess(await server.api.patch(admin, `/users/${person.id}`, { profile_data: values }));
    assert.deepEqual((await readUser(server, person.id)).profile_data, {
      [short.id]: { value: "+1-555", rendered_value: "<p>+1-555</p>" },
      [long.id]: { value: "Writes *code*", rendered_value: "<p>Writes *code*</p>" },
      [select.id]: { value: "1" },
      [date.id]: { value: "1909-03-05" },
      [url.id]: { value: "https://zulip.com" },
      [people.id]: { value: `[${member.id},${moderator.id}]` },
      [ext.id]: { value: "octocat" },
      [pronouns.id]: { value: "she/her" },
    });
    const bad = async (entry: unknown, msg: string) =>
      expectError(await server.api.patch(admin, `/users/${person.id}`, { profile_data: [{ id: short.id, value: "changed" }, entry] }), "BAD_REQUEST", msg);
    await bad({ id: select.id, value: "invalid choice" }, "'invalid choice' is not a valid choice for 'Favorite editor'.");
    await bad({ id: date.id, value: "1909-34-55" }, "Birthday is not a date");
    await bad({ id: url.id, value: "not url" }, "Website is not a URL");
    await bad({ id: people.id, value: "not list of user ids" }, "User IDs is not a list");
    await bad({ id: people.id, value: [99999] }, "Invalid user ID: 99999");
    await bad({ id: short.id, value: "x".repeat(51) }, "Phone number is too long (limit: 50 characters)");
    await bad({ id: long.id, value: "x".repeat(501) }, "Biography is too long (limit: 500 characters)");
    await bad({ id: 9001, value: "some data" }, "Field id 9001 not found.");
    expectError(await server.api.patch(admin, `/users/${person.id}`, { profile_data: "nope" }), "BAD_REQUEST", "profile_data is not valid JSON");
    expectError(await server.api.patch(admin, `/users/${person.id}`, { profile_data: { id: 1 } }), "BAD_REQUEST", "profile_data is not a list");
    // Nothing was written by the refused requests.
    assert.equal(((await readUser(server, person.id)).profile_data as Record<string, { value: string }>)[short.id].value, "+1-555");
    expectSuccess(await server.api.patch(admin, `/users/${person.id}`, { profile_data: [{ id: short.id, value: null }, { id: long.id, value: "" }, { id: people.id, value: [] }] }));
    const after = (await readUser(server, person.id)).profile_data as Record<string, unknown>;
    assert.deepEqual(Object.keys(after).map(Number).sort((a, b) => a - b), [select.id, date.id, url.id, ext.id, pronouns.id]);
  });

  test("new_email needs an owner holding can_change_user_emails", async () => {
    const { owner, admin } = server.fixtures;
    const person = await createUser(server);
    expectError(await server.api.patch(owner, `/users/${person.id}`, { new_email: "moved@example.com" }), "BAD_REQUEST", "User not authorized to change user emails");
    await setCanChangeUserEmails(server, admin.id, true);
    expectError(await server.api.patch(admin, `/users/${person.id}`, { new_email: "moved@example.com" }), "BAD_REQUEST", "User not authorized to change user emails");
    await setCanChangeUserEmails(server, owner.id, true);
    expectError(await server.api.patch(owner, `/users/${person.id}`, { new_email: "not-an-address" }), "BAD_REQUEST", "Invalid address.");
    expectError(await server.api.patch(owner, `/users/${person.id}`, { new_email: "ADMIN@example.com" }), "BAD_REQUEST", "Email 'ADMIN@example.com' already in use");
    assert.equal((await readUser(server, person.id)).delivery_email, person.email);
    expectSuccess(await server.api.patch(owner, `/users/${person.id}`, { new_email: "moved@example.com" }));
    const moved = await readUser(server, person.id);
    assert.equal(moved.delivery_email, "moved@example.com");
    assert.equal(moved.email, "moved@example.com");
    expectSuccess(await server.api.get({ email: "moved@example.com", apiKey: person.apiKey }, "/users/me"));
    await setCanChangeUserEmails(server, owner.id, false);
  });

  test("PATCH /users/{email}: real address if visible to the caller, else the dummy address", async () => {
    const { admin } = server.fixtures;
    const person = await createUser(server);
    expectSuccess(await server.api.patch(admin, `/users/${person.email}`, { full_name: "By Email" }));
    assert.equal((await readUser(server, person.id)).full_name, "By Email");
    // Visible to nobody: the real address no longer finds the user.
    await withStore(server, (db) => db.updateTable("users").set({ email_address_visibility: 4 }).where("id", "=", person.id).execute());
    expectError(await server.api.patch(admin, `/users/${person.email}`, { full_name: "Hidden Email" }), "BAD_REQUEST", "No such user");
    const host = new URL(server.url).hostname;
    expectSuccess(await server.api.patch(admin, `/users/user${person.id}@${host}`, { full_name: "By Dummy" }));
    assert.equal((await readUser(server, person.id)).full_name, "By Dummy");
    expectError(await server.api.patch(server.fixtures.member, `/users/user${person.id}@${host}`, { full_name: "Nope Name" }), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.patch(admin, "/users/nobody@example.com", { full_name: "Nope Name" }), "BAD_REQUEST", "No such user");
  });

  test("a refused request writes none of its changes", async () => {
    const { admin } = server.fixtures;
    const person = await createUser(server, { name: "Stays Same" });
    const field = await addProfileField(server, { name: "Team", fieldType: 1 });
    const res = await server.api.patch(admin, `/users/${person.id}`, { role: 300, profile_data: [{ id: field.id, value: "ok" }, { id: 9002, value: "x" }] });
    expectError(res, "BAD_REQUEST", "Field id 9002 not found.");
    const read = await readUser(server, person.id);
    assert.equal(read.role, 400);
    assert.deepEqual(read.profile_data, {});
    assert.deepEqual(await systemGroupsOf(person.id), ["role:fullmembers", "role:members"]);
  });
});

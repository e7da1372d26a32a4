/** Reading users (GET /users, /users/me, /users/{id}, /users/{email}), POST /users, avatars, own API key. */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { test } from "node:test";
import { basicAuth, expectError, expectSuccess } from "../helpers/client.ts";
import { updateRealmSettings } from "../../src/store/realm/realms.ts";
import { getRealm } from "../../src/store/realm/realms.ts";
import { getGroupByName } from "../../src/store/groups/user-groups.ts";
import { createUser } from "../helpers/factories.ts";
import { addProfileField, withStore } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

function gravatar(email: string, medium = false): string {
  const hash = crypto.createHash("md5").update(email.toLowerCase()).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon${medium ? "&s=500" : ""}&version=1`;
}

describeEachStore("users: reading and creating", (server) => {
  test("GET /users lists every user and bot in Zulip's User shape", async () => {
    const { owner, member, bot } = server.fixtures;
    const body = expectSuccess(await server.api.get(member, "/users"));
    const ids = body.members.map((m: { user_id: number }) => m.user_id);
    for (const f of Object.values(server.fixtures)) if (typeof f === "object") assert.ok(ids.includes(f.id));
    const me = body.members.find((m: { user_id: number }) => m.user_id === member.id);
    assert.match(me.date_joined, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}\+00:00$/);
    assert.deepEqual({ ...me, date_joined: "" }, {
      user_id: member.id, email: member.email, delivery_email: member.email, full_name: "Max Member", date_joined: "",
      is_owner: false, is_admin: false, is_guest: false, is_billing_admin: false, is_bot: false, role: 400, timezone: "",
      avatar_version: 1, is_active: true, avatar_url: null,
    });
    const ownerEntry = body.members.find((m: { user_id: number }) => m.user_id === owner.id);
    assert.equal(ownerEntry.is_owner, true);
    assert.equal(ownerEntry.is_admin, true);
    const botEntry = body.members.find((m: { user_id: number }) => m.user_id === bot.id);
    assert.equal(botEntry.is_bot, true);
    assert.equal(botEntry.bot_type, 1);
    assert.equal(botEntry.bot_owner_id, member.id);
    assert.equal("profile_data" in botEntry, false);
  });

  test("client_gravatar=false gives gravatar URLs; include_custom_profile_fields adds profile_data", async () => {
    const { member, admin } = server.fixtures;
    const body = expectSuccess(await server.api.get(member, "/users", { client_gravatar: false, include_custom_profile_fields: true }));
    const entry = body.members.find((m: { user_id: number }) => m.user_id === admin.id);
    assert.equal(entry.avatar_url, gravatar(admin.email));
    assert.deepEqual(entry.profile_data, {});
  });

  test("GET /users needs credentials", async () => {
    expectError(await server.api.get(null, "/users"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get({ email: server.fixtures.member.email, apiKey: "wrong" }, "/users"), "UNAUTHORIZED", "Invalid API key", 401);
  });

  test("GET /users/me returns the caller with its profile data", async () => {
    const { member, bot } = server.fixtures;
    const body = expectSuccess(await server.api.get(member, "/users/me"));
    assert.equal(body.user_id, member.id);
    assert.equal(body.email, member.email);
    assert.equal(body.delivery_email, member.email);
    assert.equal(body.avatar_url, gravatar(member.email));
    assert.deepEqual(body.profile_data, {});
    const botBody = expectSuccess(await server.api.get(bot, "/users/me"));
    assert.equal(botBody.is_bot, true);
    assert.equal("bot_type" in botBody, false);
    expectError(await server.api.get(null, "/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("GET /users/{user_id}: any user or bot, deactivated too; unknown ids refused", async () => {
    const { guest, bot, member } = server.fixtures;
    const body = expectSuccess(await server.api.get(guest, `/users/${bot.id}`, { client_gravatar: false }));
    assert.equal(body.user.user_id, bot.id);
    assert.equal(body.user.avatar_url, gravatar(bot.email));
    expectError(await server.api.get(member, "/users/99999"), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(null, `/users/${bot.id}`), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("GET /users/{email}: real address when visible, dummy address always", async () => {
    const { member, admin, owner, moderator } = server.fixtures;
    expectSuccess(await server.api.get(member, `/users/${admin.email}`));
    expectError(await server.api.get(member, "/users/nobody@example.com"), "BAD_REQUEST", "No such user");
    // The admin hides its address from all but administrators.
    await withStore(server, (db) => db.updateTable("users").set({ email_address_visibility: 3 }).where("id", "=", admin.id).execute());
    const host = new URL(server.url).hostname;
    expectError(await server.api.get(member, `/users/${admin.email}`), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(moderator, `/users/${admin.email}`), "BAD_REQUEST", "No such user");
    const viaDummy = expectSuccess(await server.api.get(member, `/users/user${admin.id}@${host}`));
    assert.equal(viaDummy.user.email, `user${admin.id}@${host}`);
    assert.equal(viaDummy.user.delivery_email, null);
    // Hidden addresses disable client-side gravatars for that user.
    assert.equal(viaDummy.user.avatar_url, gravatar(admin.email));
    const asOwner = expectSuccess(await server.api.get(owner, `/users/${admin.email}`));
    assert.equal(asOwner.user.delivery_email, admin.email);
    await withStore(server, (db) => db.updateTable("users").set({ email_address_visibility: 1 }).where("id", "=", admin.id).execute());
  });

  test("a guest limited by can_access_all_users_group sees placeholders and cannot read others", async () => {
    const { guest, member, bot } = server.fixtures;
    const setAccess = (name: string) =>
      withStore(server, async (db) => {
        const realm = await getRealm(db, server.fixtures.realmId);
        const group = await getGroupByName(db, server.fixtures.realmId, name);
        if (!realm || !group) throw new Error("fixture realm incomplete");
        await updateRealmSettings(db, realm.id, { ...JSON.parse(realm.settings), can_access_all_users_group: group.id });
      });
    await setAccess("role:members");
    try {
      const body = expectSuccess(await server.api.get(guest, "/users"));
      const other = body.members.find((m: { user_id: number }) => m.user_id === member.id);
      assert.equal(other.full_name, "Unknown user");
      assert.equal(other.delivery_email, null);
      assert.equal(body.members.find((m: { user_id: number }) => m.user_id === bot.id).full_name, "Helper Bot");
      assert.equal(body.members.find((m: { user_id: number }) => m.user_id === guest.id).full_name, "Gus Guest");
      expectError(await server.api.get(guest, `/users/${member.id}`), "BAD_REQUEST", "Insufficient permission");
    } finally {
      await setAccess("role:everyone");
    }
    expectSuccess(await server.api.get(guest, `/users/${member.id}`));
  });

  test("POST /users creates a member who can log in and is listed", async () => {
    const { owner, admin } = server.fixtures;
    const body = expectSuccess(await server.api.post(admin, "/users", { email: "new.person@example.com", password: "secret-pw", full_name: " New Person " }));
    const read = expectSuccess(await server.api.get(owner, `/users/${body.user_id}`));
    assert.equal(read.user.full_name, "New Person");
    assert.equal(read.user.role, 400);
    const key = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: "new.person@example.com", password: "secret-pw" }));
    expectSuccess(await server.api.get({ email: "new.person@example.com", apiKey: key.api_key }, "/users/me"));
  });

  test("POST /users refuses non-administrators and bad input, writing nothing", async () => {
    const { owner, member, moderator, guest } = server.fixtures;
    const count = async () => expectSuccess(await server.api.get(owner, "/users")).members.length;
    const before = await count();
    const ok = { email: "x.user@example.com", password: "secret-pw", full_name: "X User" };
    for (const who of [member, moderator, guest]) {
      expectError(await server.api.post(who, "/users", ok), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await server.api.post(null, "/users", ok), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(owner, "/users", { password: "secret-pw", full_name: "X" }), "REQUEST_VARIABLE_MISSING", "Missing 'email' argument");
    expectError(await server.api.post(owner, "/users", { email: "a@b.c", full_name: "X User" }), "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
    expectError(await server.api.post(owner, "/users", { email: "a@b.c", password: "secret-pw" }), "REQUEST_VARIABLE_MISSING", "Missing 'full_name' argument");
    expectError(await server.api.post(owner, "/users", { ...ok, email: "broken" }), "BAD_REQUEST", "Bad name or username");
    expectError(await server.api.post(owner, "/users", { ...ok, email: "MEMBER@example.com" }), "BAD_REQUEST", "Email 'MEMBER@example.com' already in use");
    expectError(await server.api.post(owner, "/users", { ...ok, full_name: "X" }), "BAD_REQUEST", "Name too short!");
    expectError(await server.api.post(owner, "/users", { ...ok, full_name: "x".repeat(101) }), "BAD_REQUEST", "Name too long!");
    expectError(await server.api.post(owner, "/users", { ...ok, full_name: "Bad*Name" }), "BAD_REQUEST", "Invalid characters in name!");
    expectError(await server.api.post(owner, "/users", { ...ok, full_name: "Someone|12" }), "BAD_REQUEST", "Invalid format!");
    expectError(await server.api.post(owner, "/users", { ...ok, password: "short" }), "BAD_REQUEST", "The password is too weak.");
    // The organization's address rules (upstream's create_user_backend): disposable providers, allowed domains.
    expectError(await server.api.post(owner, "/users", { ...ok, email: "x@mailinator.com" }), "BAD_REQUEST", "Disposable email addresses are not allowed in this organization");
    expectSuccess(await server.api.post(owner, "/realm/domains", { domain: "example.com", allow_subdomains: false }));
    expectSuccess(await server.api.patch(owner, "/realm", { emails_restricted_to_domains: true }));
    try {
      expectError(await server.api.post(owner, "/users", { ...ok, email: "x@example.org" }), "BAD_REQUEST", "Email 'x@example.org' not allowed in this organization");
      expectError(await server.api.post(owner, "/users", { ...ok, email: "x+y@example.com" }), "BAD_REQUEST", "Email addresses containing + are not allowed.");
    } finally {
      expectSuccess(await server.api.delete(owner, "/realm/domains/example.com"));
    }
    assert.equal(await count(), before);
  });

  test("POST /users: an administrator without can_create_users is refused before any input check", async () => {
    const { owner } = server.fixtures;
    const made = expectSuccess(await server.api.post(owner, "/users", { email: "plain.admin@example.com", password: "secret-pw", full_name: "Plain Admin" }));
    expectSuccess(await server.api.patch(owner, `/users/${made.user_id}`, { role: 200 }));
    const { api_key } = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: "plain.admin@example.com", password: "secret-pw" }));
    const plainAdmin = { email: "plain.admin@example.com", apiKey: api_key };
    const count = async () => expectSuccess(await server.api.get(owner, "/users")).members.length;
    const before = await count();
    for (const params of [{ email: "y.user@example.com", password: "secret-pw", full_name: "Y User" }, { email: "broken", password: "short", full_name: "Y" }]) {
      expectError(await server.api.post(plainAdmin, "/users", params), "BAD_REQUEST", "User not authorized to create users");
    }
    assert.equal(await count(), before);
  });

  test("profile_data lists stored values with rendered text fields", async () => {
    const { owner } = server.fixtures;
    const field = await addProfileField(server, { name: "Phone", fieldType: 1 });
    const person = await createUser(server);
    expectSuccess(await server.api.patch(owner, `/users/${person.id}`, { profile_data: [{ id: field.id, value: "+1 <555>" }] }));
    const body = expectSuccess(await server.api.get(person, "/users", { include_custom_profile_fields: true }));
    const entry = body.members.find((m: { user_id: number }) => m.user_id === person.id);
    assert.deepEqual(entry.profile_data, { [field.id]: { value: "+1 <555>", rendered_value: "<p>+1 &lt;555&gt;</p>" } });
  });

  test("POST /users/me/api_key/regenerate replaces the caller's key", async () => {
    const person = await createUser(server);
    const body = expectSuccess(await server.api.post(person, "/users/me/api_key/regenerate"));
    assert.match(body.api_key, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(body.api_key, person.apiKey);
    expectError(await server.api.get(person, "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
    expectSuccess(await server.api.get({ email: person.email, apiKey: body.api_key }, "/users/me"));
    expectError(await server.api.post(null, "/users/me/api_key/regenerate"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("GET /avatar/{user_id} redirects to the avatar", async () => {
    const { member, admin } = server.fixtures;
    const get = (path: string, auth = true) =>
      fetch(`${server.url}/api/v1${path}`, { redirect: "manual", headers: auth ? { authorization: basicAuth(member) } : {} });
    let res = await get(`/avatar/${admin.id}`);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), gravatar(admin.email));
    res = await get(`/avatar/${admin.id}/medium`);
    assert.equal(res.headers.get("location"), gravatar(admin.email, true));
    res = await get(`/avatar/${admin.email}`);
    assert.equal(res.headers.get("location"), gravatar(admin.email));
    res = await get("/avatar/99999");
    assert.equal(res.headers.get("location"), gravatar("99999"));
    res = await get(`/avatar/${admin.id}`, false);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "UNAUTHORIZED");
  });
});

/** Events of the users area: register, act, poll, and the exact events each queue receives. */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { systemGroupsByName } from "../../src/store/groups/user-groups.ts";
import { getRealm, updateRealmSettings } from "../../src/store/realm/realms.ts";
import { getGroupByName } from "../../src/store/groups/user-groups.ts";
import { createUser } from "../helpers/factories.ts";
import { addProfileField, readUser, setCanChangeUserEmails, withStore } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NOT_OWNER } from "../helpers/errors.ts";

function gravatar(email: string, medium = false): string {
  const hash = crypto.createHash("md5").update(email.toLowerCase()).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon${medium ? "&s=500" : ""}&version=1`;
}

describeEachStore("users: events", (server) => {
  let groupIds: Map<string, number>;
  before(async () => {
    groupIds = await withStore(server, async (db) => {
      const groups = await systemGroupsByName(db, server.fixtures.realmId);
      return new Map([...groups].map(([name, g]) => [name, g.id]));
    });
  });

  const register = (user: Credentials, params: Record<string, unknown> = {}) => registerQueue(server.api, user, params);
  const poll = async (queue: Queue) => withoutIds(await pollEvents(server.api, queue));
  const group = (name: string) => groupIds.get(name) as number;

  test("POST /users: realm_user add to every user (the first new user's welcome also makes the Welcome Bot, announced as a bot is)", async () => {
    const { owner, member, guest } = server.fixtures;
    const queues = await Promise.all([owner, member, guest].map((u) => register(u)));
    const body = expectSuccess(await server.api.post(owner, "/users", { email: "evented@example.com", password: "secret-pw", full_name: "Evented Person" }));
    const read = await readUser(server, body.user_id);
    const botId = await withStore(server, async (db) => (await db.selectFrom("users").select("id").where("delivery_email", "=", "welcome-bot@127.0.0.1").executeTakeFirstOrThrow()).id);
    const botPerson = {
      user_id: botId, email: "welcome-bot@127.0.0.1", delivery_email: "welcome-bot@127.0.0.1", full_name: "Welcome Bot",
      date_joined: (await readUser(server, botId)).date_joined, is_owner: false, is_admin: false, is_guest: false, is_billing_admin: false,
      is_bot: true, bot_type: 1, bot_owner_id: null, role: 400, timezone: "", avatar_version: 1, is_active: true, avatar_url: gravatar("welcome-bot@127.0.0.1"),
    };
    for (const queue of queues) {
      const events = await poll(queue);
      assert.deepEqual(events.slice(0, 2), [
        {
          type: "realm_user",
          op: "add",
          person: {
            user_id: body.user_id, email: "evented@example.com", delivery_email: "evented@example.com", full_name: "Evented Person",
            date_joined: read.date_joined, is_owner: false, is_admin: false, is_guest: false, is_billing_admin: false, is_bot: false,
            role: 400, timezone: "", avatar_version: 1, is_active: true, avatar_url: gravatar("evented@example.com"), profile_data: {},
          },
        },
        { type: "realm_user", op: "add", person: botPerson },
      ]);
      // Its details go to the administrators only, as a new bot's do; so does the new user's consent to data exports.
      assert.deepEqual(events.slice(2).map((e) => `${String(e.type)}/${String(e.op)}`), queue.user === owner ? ["realm_bot/add", "realm_export_consent/undefined"] : []);
    }
  });

  test("full name and role changes: realm_user update and system-group membership events", async () => {
    const person = await createUser(server);
    const queue = await register(server.fixtures.member);
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { full_name: "New Name", role: 300 }));
    assert.deepEqual(await poll(queue), [
      { type: "realm_user", op: "update", person: { user_id: person.id, role: 300 } },
      { type: "user_group", op: "remove_members", group_id: group("role:members"), user_ids: [person.id] },
      { type: "user_group", op: "remove_members", group_id: group("role:fullmembers"), user_ids: [person.id] },
      { type: "user_group", op: "add_members", group_id: group("role:moderators"), user_ids: [person.id] },
      { type: "realm_user", op: "update", person: { user_id: person.id, full_name: "New Name" } },
    ]);
  });

  test("a refused update sends nothing", async () => {
    const queue = await register(server.fixtures.member);
    const res = await server.api.patch(server.fixtures.admin, `/users/${server.fixtures.moderator.id}`, { role: 400, profile_data: [{ id: 9999, value: "x" }] });
    expectError(res, "BAD_REQUEST", "Field id 9999 not found.");
    expectError(await server.api.patch(server.fixtures.admin, `/users/${server.fixtures.owner.id}`, { role: 400 }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    assert.deepEqual(await poll(queue), []);
  });

  test("profile_data: one realm_user update per changed field", async () => {
    const field = await addProfileField(server, { name: "Location", fieldType: 1 });
    const choice = await addProfileField(server, { name: "Shift", fieldType: 3, fieldData: JSON.stringify({ a: { text: "Day", order: "1" } }) });
    const person = await createUser(server);
    const queue = await register(server.fixtures.guest);
    const data = [{ id: field.id, value: "Lisbon" }, { id: choice.id, value: "a" }];
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { profile_data: data }));
    expectSuccess(await server.api.patch(server.fixtures.admin, `/users/${person.id}`, { profile_data: [{ id: field.id, value: "Lisbon" }, { id: choice.id, value: null }] }));
    assert.deepEqual(await poll(queue), [
      { type: "realm_user", op: "update", person: { user_id: person.id, custom_profile_field: { id: field.id, value: "Lisbon", rendered_value: "<p>Lisbon</p>" } } },
      { type: "realm_user", op: "update", person: { user_id: person.id, custom_profile_field: { id: choice.id, value: "a" } } },
      { type: "realm_user", op: "update", person: { user_id: person.id, custom_profile_field: { id: choice.id, value: null } } },
    ]);
  });

  test("new_email: delivery_email to those who may see it, avatar and new_email to all", async () => {
    const { owner, guest } = server.fixtures;
    const person = await createUser(server);
    await setCanChangeUserEmails(server, owner.id, true);
    const queues = [await register(owner), await register(guest)];
    expectSuccess(await server.api.patch(owner, `/users/${person.id}`, { new_email: "renamed@example.com" }));
    const avatar = {
      type: "realm_user", op: "update",
      person: { user_id: person.id, avatar_source: "G", avatar_url: gravatar("renamed@example.com"), avatar_url_medium: gravatar("renamed@example.com", true), avatar_version: 1 },
    };
    const newEmail = { type: "realm_user", op: "update", person: { user_id: person.id, new_email: "renamed@example.com" } };
    const delivery = { type: "realm_user", op: "update", person: { user_id: person.id, delivery_email: "renamed@example.com" } };
    for (const queue of queues) assert.deepEqual(await poll(queue), [delivery, avatar, newEmail]);
    await setCanChangeUserEmails(server, owner.id, false);
  });

  test("deactivation and reactivation: realm_user update is_active", async () => {
    const person = await createUser(server);
    const queue = await register(server.fixtures.member);
    expectSuccess(await server.api.delete(server.fixtures.admin, `/users/${person.id}`));
    expectSuccess(await server.api.post(server.fixtures.admin, `/users/${person.id}/reactivate`));
    assert.deepEqual(await poll(queue), [
      { type: "realm_user", op: "update", person: { user_id: person.id, is_active: false } },
      { type: "realm_user", op: "update", person: { user_id: person.id, is_active: true } },
    ]);
  });

  test("a guest limited by can_access_all_users_group hears nothing about users it cannot access", async () => {
    const { guest, admin } = server.fixtures;
    const setAccess = (name: string) =>
      withStore(server, async (db) => {
        const realm = await getRealm(db, server.fixtures.realmId);
        const g = await getGroupByName(db, server.fixtures.realmId, name);
        if (!realm || !g) throw new Error("fixture realm incomplete");
        await updateRealmSettings(db, realm.id, { ...JSON.parse(realm.settings), can_access_all_users_group: g.id });
      });
    const person = await createUser(server);
    await setAccess("role:members");
    try {
      const queue = await register(guest);
      expectSuccess(await server.api.patch(admin, `/users/${person.id}`, { full_name: "Hidden Rename" }));
      assert.deepEqual(await poll(queue), []);
    } finally {
      await setAccess("role:everyone");
    }
  });

  test("POST /bots: realm_user add to all, realm_bot add to the owner and administrators", async () => {
    const { member, admin, moderator } = server.fixtures;
    const [ownerQ, adminQ, otherQ] = [await register(member), await register(admin), await register(moderator)];
    const body = expectSuccess(await server.api.post(member, "/bots", { full_name: "Event Bot", short_name: "eventbot" }));
    const read = await readUser(server, body.user_id);
    const email = `eventbot-bot@${new URL(server.url).hostname}`;
    const userAdd = {
      type: "realm_user", op: "add",
      person: {
        user_id: body.user_id, email, delivery_email: email, full_name: "Event Bot", date_joined: read.date_joined, is_owner: false, is_admin: false,
        is_guest: false, is_billing_admin: false, is_bot: true, role: 400, timezone: "", avatar_version: 1, is_active: true,
        avatar_url: gravatar(email), bot_type: 1, bot_owner_id: member.id,
      },
    };
    const botAdd = {
      type: "realm_bot", op: "add",
      bot: {
        user_id: body.user_id, email, full_name: "Event Bot", bot_type: 1, is_active: true, api_key: body.api_key, default_sending_stream: null,
        default_events_register_stream: null, default_all_public_streams: false, avatar_url: gravatar(email), owner_id: member.id, services: [],
      },
    };
    assert.deepEqual(await poll(ownerQ), [userAdd, botAdd]);
    assert.deepEqual(await poll(adminQ), [userAdd, botAdd]);
    assert.deepEqual(await poll(otherQ), [userAdd]);
  });

  test("bot changes: rename, new key, new owner, deactivation", async () => {
    const { member, moderator, admin } = server.fixtures;
    const created = expectSuccess(await server.api.post(member, "/bots", { full_name: "Busy Bot", short_name: "busybot" }));
    const id = created.user_id;
    const [ownerQ, newOwnerQ, adminQ] = [await register(member), await register(moderator), await register(admin)];
    expectSuccess(await server.api.patch(member, `/bots/${id}`, { full_name: "Busier Bot" }));
    const key = expectSuccess(await server.api.post(member, `/bots/${id}/api_key/regenerate`)).api_key;
    expectSuccess(await server.api.patch(member, `/bots/${id}`, { bot_owner_id: moderator.id }));
    expectSuccess(await server.api.delete(moderator, `/bots/${id}`));
    const rename = { type: "realm_user", op: "update", person: { user_id: id, full_name: "Busier Bot" } };
    const botRename = { type: "realm_bot", op: "update", bot: { user_id: id, full_name: "Busier Bot" } };
    const newKey = { type: "realm_bot", op: "update", bot: { user_id: id, api_key: key } };
    const ownerUpdate = { type: "realm_bot", op: "update", bot: { user_id: id, owner_id: moderator.id } };
    const userOwner = { type: "realm_user", op: "update", person: { user_id: id, bot_owner_id: moderator.id } };
    const inactive = { type: "realm_user", op: "update", person: { user_id: id, is_active: false } };
    const botInactive = { type: "realm_bot", op: "update", bot: { user_id: id, is_active: false } };
    const email = `busybot-bot@${new URL(server.url).hostname}`;
    const botAdd = {
      type: "realm_bot", op: "add",
      bot: {
        user_id: id, email, full_name: "Busier Bot", bot_type: 1, is_active: true, api_key: key, default_sending_stream: null,
        default_events_register_stream: null, default_all_public_streams: false, avatar_url: gravatar(email), owner_id: moderator.id, services: [],
      },
    };
    assert.deepEqual(await poll(ownerQ), [rename, botRename, newKey, { type: "realm_bot", op: "delete", bot: { user_id: id } }, userOwner, inactive]);
    assert.deepEqual(await poll(newOwnerQ), [rename, botAdd, ownerUpdate, userOwner, inactive, botInactive]);
    assert.deepEqual(await poll(adminQ), [rename, botRename, newKey, ownerUpdate, userOwner, inactive, botInactive]);
  });

  test("deactivating a user deactivates its bots first, each announced", async () => {
    const person = await createUser(server);
    const bot = expectSuccess(await server.api.post(person, "/bots", { full_name: "Orphan Bot", short_name: `orphan${person.id}` }));
    const queue = await register(server.fixtures.admin);
    expectSuccess(await server.api.delete(server.fixtures.admin, `/users/${person.id}`));
    assert.deepEqual(await poll(queue), [
      { type: "realm_user", op: "update", person: { user_id: bot.user_id, is_active: false } },
      { type: "realm_bot", op: "update", bot: { user_id: bot.user_id, is_active: false } },
      { type: "realm_user", op: "update", person: { user_id: person.id, is_active: false } },
    ]);
  });

  test("register: realm_user, realm_bot and custom_profile_fields snapshot", async () => {
    const { member, admin, bot } = server.fixtures;
    const state = (await register(member, { fetch_event_types: ["realm_user", "realm_bot", "custom_profile_fields"] })).state;
    const users = state.realm_users as Array<Record<string, unknown>>;
    const me = users.find((u) => u.user_id === member.id);
    assert.ok(me);
    assert.equal("is_active" in me, false);
    assert.equal(me.avatar_url, null);
    assert.deepEqual(me.profile_data, {});
    assert.ok((state.realm_non_active_users as Array<{ user_id: number }>).length > 0);
    assert.deepEqual(state.cross_realm_bots, []);
    assert.equal(state.user_id, member.id);
    assert.equal(state.email, member.email);
    assert.equal(state.delivery_email, member.email);
    assert.equal(state.is_admin, false);
    assert.equal(state.is_moderator, false);
    assert.equal(state.avatar_url_medium, gravatar(member.email, true));
    assert.equal(state.can_create_public_streams, true);
    const myBots = (state.realm_bots as Array<{ user_id: number; owner_id: number }>).map((b) => b.owner_id);
    assert.ok(myBots.length > 0 && myBots.every((o) => o === member.id));
    assert.ok((state.realm_bots as Array<{ user_id: number }>).some((b) => b.user_id === bot.id));
    assert.ok(Array.isArray(state.custom_profile_fields));
    assert.deepEqual((state.custom_profile_field_types as Record<string, unknown>).SHORT_TEXT, { id: 1, name: "Short text" });
    const adminState = (await register(admin, { fetch_event_types: ["realm_bot"], client_gravatar: false })).state;
    assert.ok((adminState.realm_bots as Array<{ owner_id: number }>).some((b) => b.owner_id !== admin.id));
    assert.equal("realm_users" in adminState, false);
    const optional = (await register(admin, { fetch_event_types: ["realm_user"], client_capabilities: { notification_settings_null: false, user_avatar_url_field_optional: true } })).state;
    const inactive = optional.realm_non_active_users as Array<Record<string, unknown>>;
    assert.equal(inactive.every((u) => !("avatar_url" in u)), true);
  });
});

/** Code playgrounds: POST /realm/playgrounds, DELETE /realm/playgrounds/{id}, register data and events. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

const PYTHON = { name: "Python playground", pygments_language: "Python", url_template: "https://python.example.com?code={code}" };

describeEachStore("playgrounds", (server) => {
  async function playgrounds(user: Credentials = server.fixtures.member): Promise<Array<Record<string, unknown>>> {
    const { state } = await registerQueue(server.api, user, { fetch_event_types: ["realm_playgrounds"] });
    return state.realm_playgrounds as Array<Record<string, unknown>>;
  }

  test("an administrator adds and removes playgrounds; everyone sees them in /register", async () => {
    const { admin, owner, guest } = server.fixtures;
    const { id } = expectSuccess(await server.api.post(admin, "/realm/playgrounds", PYTHON));
    const second = expectSuccess(await server.api.post(owner, "/realm/playgrounds", { ...PYTHON, name: "Other", url_template: "https://p.example.com{/code}" }));
    assert.deepEqual(await playgrounds(guest), [
      { id, ...PYTHON },
      { id: second.id, ...PYTHON, name: "Other", url_template: "https://p.example.com{/code}" },
    ]);
    expectSuccess(await server.api.delete(admin, `/realm/playgrounds/${id}`));
    expectSuccess(await server.api.delete(admin, `/realm/playgrounds/${second.id}`));
    assert.deepEqual(await playgrounds(), []);
  });

  test("only administrators; no credentials refused; nothing written", async () => {
    const { admin, moderator, member, guest, bot } = server.fixtures;
    for (const who of [moderator, member, guest, bot]) {
      expectError(await server.api.post(who, "/realm/playgrounds", PYTHON), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await server.api.post(null, "/realm/playgrounds", PYTHON), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await playgrounds(), []);
    const { id } = expectSuccess(await server.api.post(admin, "/realm/playgrounds", PYTHON));
    expectError(await server.api.delete(member, `/realm/playgrounds/${id}`), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.delete(null, `/realm/playgrounds/${id}`), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.delete(admin, `/realm/playgrounds/${id + 100}`), "BAD_REQUEST", "Invalid playground");
    assert.equal((await playgrounds()).length, 1);
    expectSuccess(await server.api.delete(admin, `/realm/playgrounds/${id}`));
  });

  test("validation errors, each writing nothing", async () => {
    const { admin } = server.fixtures;
    const add = (changes: Record<string, unknown>) => server.api.post(admin, "/realm/playgrounds", { ...PYTHON, ...changes });
    expectError(await add({ pygments_language: "a$b$c" }), "BAD_REQUEST", "Invalid characters in pygments language");
    expectError(await add({ pygments_language: "x".repeat(41) }), "BAD_REQUEST", "pygments_language is too long (limit: 40 characters)");
    expectError(await add({ name: "" }), "BAD_REQUEST", "This field cannot be blank.");
    expectError(await add({ url_template: "https://template.com{?test,code}" }), "BAD_REQUEST", '"code" should be the only variable present in the URL template');
    expectError(await add({ url_template: "https://template.com?test={test" }), "BAD_REQUEST", "Invalid URL template.");
    expectError(await add({ url_template: "https://template.com{?test}" }), "BAD_REQUEST", 'Missing the required variable "code" in the URL template');
    expectError(await add({ url_template: "https://template.com/" }), "BAD_REQUEST", 'Missing the required variable "code" in the URL template');
    expectError(await server.api.post(admin, "/realm/playgrounds", { name: "x", pygments_language: "Python" }), "REQUEST_VARIABLE_MISSING", "Missing 'url_template' argument");
    assert.deepEqual(await playgrounds(), []);
    expectSuccess(await add({}));
    expectError(await add({}), "BAD_REQUEST", "Realm playground with this Realm, Pygments language and Name already exists.");
    expectSuccess(await add({ pygments_language: "Python3" }));
    assert.equal((await playgrounds()).length, 2);
    for (const p of await playgrounds()) expectSuccess(await server.api.delete(admin, `/realm/playgrounds/${p.id}`));
  });

  test("realm_playgrounds events carry the whole list to every user", async () => {
    const { admin, guest } = server.fixtures;
    const queue = await registerQueue(server.api, guest, { event_types: ["realm_playgrounds"] });
    const { id } = expectSuccess(await server.api.post(admin, "/realm/playgrounds", PYTHON));
    expectError(await server.api.post(admin, "/realm/playgrounds", PYTHON), "BAD_REQUEST", "Realm playground with this Realm, Pygments language and Name already exists.");
    expectSuccess(await server.api.delete(admin, `/realm/playgrounds/${id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "realm_playgrounds", realm_playgrounds: [{ id, ...PYTHON }] },
      { type: "realm_playgrounds", realm_playgrounds: [] },
    ]);
  });
});

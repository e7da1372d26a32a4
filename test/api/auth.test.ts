/** POST /fetch_api_key, HTTP Basic auth, and the request conventions every endpoint shares. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { migrate, openStore } from "../../src/store/db.ts";
import { basicAuth, expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { runCli, type TestServer } from "../helpers/server.ts";
import { NO_AUTH, WRONG_LOGIN } from "../helpers/errors.ts";
import { describeEachStore } from "../helpers/suite.ts";

const BODY_LIMIT = 4096;
const LOGIN_LIMIT = 3;

/** A raw request, for headers and bodies the ApiClient would not send. */
async function raw(server: TestServer, method: string, path: string, init: { headers?: Record<string, string>; body?: string | FormData } = {}): Promise<ApiResponse> {
  const res = await fetch(`${server.url}${path}`, { method, headers: init.headers, body: init.body });
  const text = await res.text();
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `JSON expected, got: ${text.slice(0, 200)}`);
  return { status: res.status, body: JSON.parse(text), headers: res.headers };
}

describeEachStore("fetch_api_key, auth and request conventions", {
  // Only the per-username login limit: the per-user and per-address limits (rate-limits.test.ts)
  // would count this suite's many requests from one address.
  env: {
    LOGIN_RATE_LIMIT: String(LOGIN_LIMIT), LOGIN_RATE_WINDOW_SECONDS: "60", RATE_LIMIT_API_PER_USER: "0", RATE_LIMIT_API_PER_IP: "0", MAX_BODY_BYTES: String(BODY_LIMIT),
  },
}, (server) => {
  const login = (username: string, password: string, encoding: "form" | "multipart" | "query" = "form") =>
    server.api.post(null, "/fetch_api_key", { username, password }, { encoding });
  /** A user made through the CLI, with a password, for tests that lock or deactivate it. */
  async function cliUser(name: string, password: string): Promise<Credentials & { id: number; password: string }> {
    const res = await runCli(server.store, ["create-user", "--email", `${name}@example.com`, "--full-name", name, "--password", password]);
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { user_id: number; email: string; api_key: string };
    return { id: out.user_id, email: out.email, apiKey: out.api_key, password };
  }


  describe("POST /fetch_api_key", () => {
    test("the right password returns the key, email and user id, in every encoding", async () => {
      const { member } = server.fixtures;
      for (const encoding of ["form", "multipart", "query"] as const) {
        const body = expectSuccess(await login(member.email, member.password, encoding));
        assert.deepEqual(body, { result: "success", msg: "", api_key: member.apiKey, email: member.email, user_id: member.id });
      }
    });

    test("the username matches the email in any case; the response gives the stored email", async () => {
      const { moderator } = server.fixtures;
      const body = expectSuccess(await login(moderator.email.toUpperCase(), moderator.password));
      assert.equal(body.email, moderator.email);
      assert.equal(body.user_id, moderator.id);
    });

    test("wrong password, unknown user and password-less bot: one error", async () => {
      const { guest, bot } = server.fixtures;
      expectError(await login(guest.email, "not-it"), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      expectError(await login("stranger@example.com", guest.password), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      expectError(await login(bot.email, ""), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      expectSuccess(await login(guest.email, guest.password));
    });

    test("missing or malformed parameters", async () => {
      const missingUser = await server.api.post(null, "/fetch_api_key", { password: "x" });
      expectError(missingUser, "REQUEST_VARIABLE_MISSING", "Missing 'username' argument");
      assert.equal(missingUser.body.var_name, "username");
      expectError(await server.api.post(null, "/fetch_api_key", { username: "a@example.com" }), "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
      expectError(await login("not an email", "x"), "BAD_REQUEST", "Enter a valid email address.");
    });

    test("a deactivated user: USER_DEACTIVATED, but only for the right password", async () => {
      const user = await cliUser("retired", "retired-pw");
      expectSuccess(await login(user.email, user.password));
      const res = await runCli(server.store, ["deactivate-user", "--email", user.email]);
      assert.equal(res.code, 0, res.stderr);
      expectError(await login(user.email, user.password), "USER_DEACTIVATED", "Account is deactivated", 401);
      expectError(await login(user.email, "guess"), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    });

    test(`after ${LOGIN_LIMIT} failures the username is locked out until the window ends`, async () => {
      const user = await cliUser("hammered", "hammered-pw");
      const other = await cliUser("bystander", "bystander-pw");
      for (let i = 0; i < LOGIN_LIMIT; i++) expectError(await login(user.email, `guess-${i}`), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      const limited = await login(user.email, user.password);
      expectError(limited, "RATE_LIMIT_HIT", "API usage exceeded rate limit", 429);
      const retry = limited.body["retry-after"];
      assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 60, `retry-after: ${retry}`);
      expectError(await login(user.email.toUpperCase(), user.password), "RATE_LIMIT_HIT", "API usage exceeded rate limit", 429);
      expectSuccess(await login(other.email, other.password));
      await server.advanceClock(61);
      expectSuccess(await login(user.email, user.password));
    });

    test("a success clears the failure count", async () => {
      const user = await cliUser("forgetful", "forgetful-pw");
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < LOGIN_LIMIT - 1; i++) expectError(await login(user.email, "nope"), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
        expectSuccess(await login(user.email, user.password));
      }
    });

    test("the password never appears in the server's output", async () => {
      await login(server.fixtures.admin.email, "very-distinctive-wrong-password");
      assert.ok(!server.output().includes("very-distinctive-wrong-password"));
      assert.ok(!server.output().includes(server.fixtures.admin.apiKey));
    });
  });

  describe("HTTP Basic auth (on GET /users/me)", () => {
    test("valid credentials authenticate", async () => {
      const { member } = server.fixtures;
      assert.equal(expectSuccess(await server.api.get(member, "/users/me")).user_id, member.id);
    });

    test("missing or malformed Authorization headers: 401 UNAUTHORIZED", async () => {
      expectError(await raw(server, "GET", "/api/v1/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
      const malformed = ["Bearer abc", "Basic", "Basic !!!", `Basic ${Buffer.from("no-colon").toString("base64")}`, "Digest username=x"];
      for (const header of malformed) {
        expectError(await raw(server, "GET", "/api/v1/users/me", { headers: { authorization: header } }), "UNAUTHORIZED", NO_AUTH, 401);
      }
    });

    test("a wrong key, or a key with another user's email: 401 Invalid API key", async () => {
      const { member, admin } = server.fixtures;
      expectError(await server.api.get({ email: member.email, apiKey: "x".repeat(32) }, "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
      expectError(await server.api.get({ email: admin.email, apiKey: member.apiKey }, "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
      expectError(await server.api.get({ email: member.email, apiKey: "" }, "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
    });

    test("a deactivated user: 401 Account is deactivated", async () => {
      const user = await cliUser("gone", "gone-pw");
      expectSuccess(await server.api.get(user, "/users/me"));
      assert.equal((await runCli(server.store, ["deactivate-user", "--email", user.email])).code, 0);
      expectError(await server.api.get(user, "/users/me"), "UNAUTHORIZED", "Account is deactivated", 401);
      const header = basicAuth(user);
      expectError(await raw(server, "GET", "/api/v1/users/me", { headers: { authorization: header } }), "UNAUTHORIZED", "Account is deactivated", 401);
    });

    test("unauthenticated endpoints ignore a bad Authorization header", async () => {
      const res = await raw(server, "GET", "/api/v1/server_settings", { headers: { authorization: "Basic !!!" } });
      assert.equal(res.status, 200);
    });
  });

  describe("request conventions", () => {
    test("body parameters win over query-string parameters", async () => {
      const { member } = server.fixtures;
      const url = `/api/v1/fetch_api_key?username=${encodeURIComponent(member.email)}&password=wrong`;
      const form = new URLSearchParams({ password: member.password }).toString();
      const ok = await raw(server, "POST", url, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
      assert.equal(ok.body.api_key, member.apiKey);
      const flipped = `/api/v1/fetch_api_key?username=${encodeURIComponent(member.email)}&password=${encodeURIComponent(member.password)}`;
      const bad = await raw(server, "POST", flipped, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: "password=wrong" });
      expectError(bad, "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    });

    test("multipart bodies, as zulip-js sends them", async () => {
      const { member } = server.fixtures;
      const form = new FormData();
      form.append("username", member.email);
      form.append("password", member.password);
      assert.equal((await raw(server, "POST", "/api/v1/fetch_api_key", { body: form })).body.user_id, member.id);
    });

    test("string parameters are taken as sent, never JSON-decoded", async () => {
      const user = await cliUser("literal", "null");
      expectSuccess(await login(user.email, "null"));
      expectError(await login(user.email, '"null"'), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    });

    test("PATCH parameters in the query string (zulip-js style)", async () => {
      const { admin, member } = server.fixtures;
      expectSuccess(await server.api.patch(admin, `/users/${member.id}`, { full_name: "Max Renamed" }, { encoding: "query" }));
      assert.equal(expectSuccess(await server.api.get(admin, `/users/${member.id}`)).user.full_name, "Max Renamed");
    });

    test("DELETE parameters in the query string (zulip-js style)", async () => {
      const res = await server.api.delete(server.fixtures.member, "/events", { queue_id: "no-such-queue" }, { encoding: "query" });
      expectError(res, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: no-such-queue");
      expectError(await server.api.delete(server.fixtures.member, "/events", {}, { encoding: "query" }), "REQUEST_VARIABLE_MISSING", "Missing 'queue_id' argument");
    });

    test("JSON-encoded values, including null and booleans, in a multipart POST", async () => {
      // client_gravatar is Json[bool | None] upstream: a JSON null means "the default".
      const params = { client_gravatar: "null", apply_markdown: "true", client_capabilities: { notification_settings_null: true } };
      const body = expectSuccess(await server.api.post(server.fixtures.member, "/register", params, { encoding: "multipart" }));
      assert.equal(typeof body.queue_id, "string");
      const typed = expectSuccess(await server.api.post(server.fixtures.member, "/register", { event_types: ["realm_user"], fetch_event_types: ["realm_user"] }));
      assert.ok("realm_users" in typed);
      expectError(await server.api.post(server.fixtures.member, "/register", { event_types: "[not json" }), "BAD_REQUEST", "event_types is not valid JSON");
    });

    test(`a body over MAX_BODY_BYTES (${BODY_LIMIT}) is refused with the envelope`, async () => {
      const big = "x".repeat(BODY_LIMIT + 1);
      const form = await server.api.post(null, "/fetch_api_key", { username: "a@example.com", password: big });
      expectError(form, "BAD_REQUEST", `Request body too large (limit: ${BODY_LIMIT} bytes)`, 413);
      const multipart = await server.api.post(null, "/fetch_api_key", { username: "a@example.com", password: big }, { encoding: "multipart" });
      expectError(multipart, "BAD_REQUEST", `Request body too large (limit: ${BODY_LIMIT} bytes)`, 413);
    });

    test("unknown routes and methods get a JSON 404, authenticated or not", async () => {
      expectError(await raw(server, "GET", "/api/v1/no/such/route"), "NOT_FOUND", "Endpoint does not exist", 404);
      expectError(await raw(server, "POST", "/api/v1/no/such/route", { headers: { authorization: basicAuth(server.fixtures.member) } }), "NOT_FOUND", "Endpoint does not exist", 404);
      expectError(await raw(server, "GET", "/api/v1/fetch_api_key"), "NOT_FOUND", "Endpoint does not exist", 404);
      expectError(await raw(server, "GET", "/favicon.ico"), "NOT_FOUND", "Endpoint does not exist", 404);
    });

    test("malformed JSON bodies get the envelope", async () => {
      const res = await raw(server, "POST", "/api/v1/fetch_api_key", { headers: { "content-type": "application/json" }, body: "{oops" });
      expectError(res, "BAD_REQUEST", "Malformed JSON");
    });
  });

  // Last: it deactivates the whole organization.
  describe("a deactivated organization", () => {
    test("password login says so (for the right password) and Basic auth refuses", async () => {
      const { owner } = server.fixtures;
      const s = openStore({ databaseUrl: server.store.databaseUrl, dataDir: server.store.dataDir });
      try {
        await migrate(s);
        await s.db.updateTable("realms").set({ deactivated: 1 }).execute();
      } finally {
        await s.close();
      }
      expectError(await login(owner.email, owner.password), "REALM_DEACTIVATED", "This organization has been deactivated", 401);
      expectError(await login(owner.email, "wrong"), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      expectError(await server.api.get(owner, "/users/me"), "UNAUTHORIZED", "This organization has been deactivated", 401);
    });
  });
});

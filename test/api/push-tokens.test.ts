/**
 * Push registration with the legacy token calls the Zulip app makes (POST/DELETE
 * /users/me/apns_device_token and /users/me/android_gcm_reg_id), against a stand-in relay
 * (test/helpers/push-relay.ts): tokens stored without a relay (and registered with one configured
 * later, once), push_notifications_enabled in /server_settings and the snapshot, upstream's
 * validation and its Python examples, the legacy test notification, the relay's register/unregister
 * calls with the organization's and user's UUIDs, made off the request path and retried while
 * the relay is down, dropped when it refuses.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { pushWorkSettled, startStandInRelay, type StandInRelay } from "../helpers/push-relay.ts";
import { registerQueue } from "../helpers/events.ts";
import { runCli, startServerOnStore } from "../helpers/server.ts";
import { describeEachStore, forEachStore, useServer } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const APNS = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachStore("push tokens without a relay", (server) => {
  let relay: StandInRelay | null = null;
  after(async () => {
    await relay?.close();
  });

  const tokensOf = (userId: number) => withDb(server, (db) => db.selectFrom("push_device_tokens").select(["kind", "token", "ios_app_id"]).where("user_id", "=", userId).orderBy("id").execute());

  test("push is off: the flags say so, and the token calls store the tokens all the same (the app registers at every login)", async () => {
    const { member } = server.fixtures;
    assert.equal(expectSuccess(await server.api.get(null, "/server_settings")).push_notifications_enabled, false);
    assert.equal((await registerQueue(server.api, member, { fetch_event_types: ["realm"] })).state.realm_push_notifications_enabled, false);
    expectSuccess(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "fcm-token" }));
    expectSuccess(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "fcm-token" }));
    expectSuccess(await server.api.post(member, "/users/me/apns_device_token", { token: APNS.toUpperCase(), appid: "org.zulip.Zulip" }));
    assert.deepEqual(await tokensOf(member.id), [
      { kind: 2, token: "fcm-token", ios_app_id: null },
      { kind: 1, token: APNS, ios_app_id: "org.zulip.Zulip" },
    ]);
    // Nothing waits for a relay that is not there.
    assert.deepEqual(await withDb(server, (db) => db.selectFrom("push_relay_jobs").select("call").execute()), []);
    expectSuccess(await server.api.delete(member, "/users/me/apns_device_token", { token: APNS }));
    assert.deepEqual((await tokensOf(member.id)).map((t) => t.token), ["fcm-token"]);
    // Without a relay, forgetting a token that is not there is an error (upstream's remove_push_device_token).
    expectError(await server.api.delete(member, "/users/me/apns_device_token", { token: APNS }), "BAD_REQUEST", "Token does not exist");
    expectError(await server.api.delete(member, "/users/me/android_gcm_reg_id", { token: "never-registered" }), "BAD_REQUEST", "Token does not exist");
  });

  test("upstream's validation comes first, in its words", async () => {
    const { member } = server.fixtures;
    const before = await tokensOf(member.id);
    expectError(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "" }), "BAD_REQUEST", "Empty or invalid length token");
    expectError(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "x".repeat(4097) }), "BAD_REQUEST", "Empty or invalid length token");
    expectError(await server.api.post(member, "/users/me/apns_device_token", { token: "zz", appid: "org.zulip.Zulip" }), "BAD_REQUEST", "Invalid APNS token");
    expectError(await server.api.delete(member, "/users/me/apns_device_token", { token: "" }), "BAD_REQUEST", "Empty or invalid length token");
    expectError(await server.api.post(server.fixtures.bot as Credentials, "/users/me/android_gcm_reg_id", { token: "t" }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    assert.deepEqual(await tokensOf(member.id), before);
  });

  test("upstream's Python examples for the token calls (python_examples.py, made as call_endpoint makes them: a form body)", async () => {
    const { moderator } = server.fixtures;
    // add_apns_token / remove_apns_token (the FL 372 file's example token), add_fcm_token / remove_fcm_token.
    expectSuccess(await server.api.post(moderator, "/users/me/apns_device_token", { token: "apple-tokenbb", appid: "org.zulip.Zulip" }));
    assert.deepEqual(await tokensOf(moderator.id), [{ kind: 1, token: "apple-tokenbb", ios_app_id: "org.zulip.Zulip" }]);
    expectSuccess(await server.api.delete(moderator, "/users/me/apns_device_token", { token: "apple-tokenbb" }));
    expectSuccess(await server.api.post(moderator, "/users/me/android_gcm_reg_id", { token: "android-token" }));
    expectSuccess(await server.api.delete(moderator, "/users/me/android_gcm_reg_id", { token: "android-token" }));
    // The FL 420 file's example token.
    expectSuccess(await server.api.post(moderator, "/users/me/apns_device_token", { token: "c0ffee", appid: "org.zulip.Zulip" }));
    expectSuccess(await server.api.delete(moderator, "/users/me/apns_device_token", { token: "c0ffee" }));
    assert.deepEqual(await tokensOf(moderator.id), []);
  });

  test("test notifications without a relay: the legacy call answers for the device (none sent); the E2EE one has no device", async () => {
    const { member, admin } = server.fixtures;
    // test_notify's example token is nobody's.
    expectError(await server.api.post(member, "/mobile_push/test_notification", { token: "111222" }), "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
    expectSuccess(await server.api.post(member, "/mobile_push/test_notification", { token: "fcm-token" }));
    expectSuccess(await server.api.post(member, "/mobile_push/test_notification", {}));
    // Upstream's test sends to every device of the user, and none is no error.
    expectSuccess(await server.api.post(admin, "/mobile_push/test_notification"));
    expectError(await server.api.post(server.fixtures.bot as Credentials, "/mobile_push/test_notification", {}), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    const e2ee = (params: Record<string, unknown>) => server.api.post(member, "/mobile_push/e2ee/test_notification", params, { validate: false });
    expectError(await e2ee({}), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
    expectError(await e2ee({ push_account_id: 111222 }), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
  });

  test("tokens stored without a relay are registered with it once one is configured, once (last: it restarts the server)", async () => {
    const { member, owner } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
    const stored = await withDb(server, (db) => db.selectFrom("push_device_tokens").select(["user_id", "token"]).orderBy("id").execute());
    assert.deepEqual(stored, [
      { user_id: member.id, token: "fcm-token" },
      { user_id: owner.id, token: APNS },
    ]);
    await server.stopProcess();
    relay = await startStandInRelay();
    const env = { ...relay.env(), PUSH_RELAY_RETRY_BASE_MS: "100" };
    server.replace(await startServerOnStore(server.store, server.fixtures, env));
    const calls = await relay.waitForCalls(2);
    assert.deepEqual(calls.map((c) => [c.endpoint, c.fields.user_id, c.fields.token]).sort(), [
      ["push/register", String(member.id), "fcm-token"],
      ["push/register", String(owner.id), APNS],
    ].sort());
    const apns = calls.find((c) => c.fields.token === APNS);
    assert.deepEqual([apns?.fields.token_kind, apns?.fields.ios_app_id, apns?.fields.server_uuid], ["1", "org.zulip.Zulip", relay.orgId]);
    // Started again with the same relay: nothing is registered twice. The first call the relay
    // hears is the one a new token makes (a starting worker queues stored tokens before it
    // sends anything, and the queue goes in order of due time). Stopped once the calls' jobs are
    // done: the relay records a call as it arrives, and a stop aborts a call still under way,
    // which is then made again (relay calls are made at least once).
    await pushWorkSettled(server);
    await server.stopProcess();
    server.replace(await startServerOnStore(server.store, server.fixtures, env));
    expectSuccess(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "fcm-token-2" }));
    const next = await relay.waitForCalls(3);
    assert.deepEqual(next.slice(2).map((c) => [c.endpoint, c.fields.token]), [["push/register", "fcm-token-2"]]);
  });
});

forEachStore("push tokens through the relay", (store) => {
  let relay: StandInRelay;
  before(async () => {
    relay = await startStandInRelay();
  });
  const server = useServer(store, () => ({ ...relay.env(), PUSH_RELAY_RETRY_BASE_MS: "100" }));
  after(async () => {
    await relay?.close();
  });

  const uuids = (userId: number) =>
    withDb(server, async (db) => ({
      user: (await db.selectFrom("users").select("uuid").where("id", "=", userId).executeTakeFirstOrThrow()).uuid,
      realm: (await db.selectFrom("realms").select("uuid").where("id", "=", server.fixtures.realmId).executeTakeFirstOrThrow()).uuid,
    }));
  const tokensOf = (userId: number) => withDb(server, (db) => db.selectFrom("push_device_tokens").select(["kind", "token", "ios_app_id"]).where("user_id", "=", userId).orderBy("id").execute());
  const pendingJobs = () => withDb(server, (db) => db.selectFrom("push_relay_jobs").select(["call", "failed_tries"]).execute());

  test("push is on: the flags say so", async () => {
    assert.equal(expectSuccess(await server.api.get(null, "/server_settings")).push_notifications_enabled, true);
    assert.equal((await registerQueue(server.api, server.fixtures.member, { fetch_event_types: ["realm"] })).state.realm_push_notifications_enabled, true);
  });

  test("an FCM token: stored once, registered at the relay with the UUIDs upstream sends", async () => {
    const { member } = server.fixtures;
    const seen = relay.calls.length;
    expectSuccess(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "fcm:token-1" }));
    expectSuccess(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "fcm:token-1" }));
    assert.deepEqual(await tokensOf(member.id), [{ kind: 2, token: "fcm:token-1", ios_app_id: null }]);
    const calls = (await relay.waitForCalls(seen + 2)).slice(seen);
    const { user, realm } = await uuids(member.id);
    assert.match(user ?? "", UUID);
    assert.match(realm ?? "", UUID);
    for (const call of calls) {
      assert.equal(call.endpoint, "push/register");
      assert.deepEqual(call.fields, { server_uuid: relay.orgId, user_uuid: user, realm_uuid: realm, user_id: String(member.id), token: "fcm:token-1", token_kind: "2" });
    }
    assert.ok(relay.tokens.has(`${user} 2 fcm:token-1`));
  });

  test("an APNs token: hex, kept lower-cased, with its app id; DELETE unregisters it", async () => {
    const { moderator } = server.fixtures;
    const seen = relay.calls.length;
    expectSuccess(await server.api.post(moderator, "/users/me/apns_device_token", { token: APNS.toUpperCase(), appid: "org.zulip.Zulip" }));
    assert.deepEqual(await tokensOf(moderator.id), [{ kind: 1, token: APNS, ios_app_id: "org.zulip.Zulip" }]);
    const [registered] = (await relay.waitForCalls(seen + 1)).slice(seen);
    assert.deepEqual([registered.fields.token, registered.fields.token_kind, registered.fields.ios_app_id], [APNS, "1", "org.zulip.Zulip"]);
    expectSuccess(await server.api.delete(moderator, "/users/me/apns_device_token", { token: APNS }));
    assert.deepEqual(await tokensOf(moderator.id), []);
    const [unregistered] = (await relay.waitForCalls(seen + 2)).slice(seen + 1);
    assert.equal(unregistered.endpoint, "push/unregister");
    assert.equal(unregistered.fields.ios_app_id, undefined);
    assert.equal([...relay.tokens.keys()].some((k) => k.endsWith(APNS)), false);
    // A token nobody registered: still success here; the relay's "Token does not exist" is only logged.
    expectSuccess(await server.api.delete(moderator, "/users/me/android_gcm_reg_id", { token: "never-registered" }));
    await relay.waitForCalls(seen + 3);
  });

  test("validation, in upstream's words; nothing stored or sent", async () => {
    const { member, guest } = server.fixtures;
    const bot = server.fixtures.bot as Credentials;
    const seen = relay.calls.length;
    const before = await tokensOf(member.id);
    expectError(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "" }), "BAD_REQUEST", "Empty or invalid length token");
    expectError(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "x".repeat(4097) }), "BAD_REQUEST", "Empty or invalid length token");
    expectError(await server.api.post(member, "/users/me/apns_device_token", { token: "zz", appid: "org.zulip.Zulip" }), "BAD_REQUEST", "Invalid APNS token");
    expectError(await server.api.post(member, "/users/me/apns_device_token", { token: "abc", appid: "org.zulip.Zulip" }), "BAD_REQUEST", "Invalid APNS token");
    expectError(await server.api.post(member, "/users/me/apns_device_token", { token: APNS, appid: "org zulip" }), "BAD_REQUEST", "Invalid app ID");
    expectError(await server.api.post(member, "/users/me/apns_device_token", { token: APNS }), "REQUEST_VARIABLE_MISSING", "Missing 'appid' argument");
    expectError(await server.api.post(bot, "/users/me/android_gcm_reg_id", { token: "t" }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await server.api.post(null, "/users/me/android_gcm_reg_id", { token: "t" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.delete(member, "/users/me/apns_device_token", { token: "zz" }), "BAD_REQUEST", "Invalid APNS token");
    assert.deepEqual(await tokensOf(member.id), before);
    assert.deepEqual(await tokensOf(guest.id), []);
    assert.equal(relay.calls.length, seen);
  });

  test("a relay that is down does not slow the request; the call is retried until it gets through", async () => {
    const { admin } = server.fixtures;
    relay.fault = { kind: "drop" };
    const seen = relay.calls.length;
    try {
      expectSuccess(await server.api.post(admin, "/users/me/android_gcm_reg_id", { token: "fcm:while-down" }));
      await relay.waitForCalls(seen + 1);
      relay.fault = { kind: "status", status: 503 };
      await relay.waitForCalls(seen + 2);
      const [job] = await pendingJobs();
      assert.equal(job?.call, "register");
      assert.ok((job?.failed_tries ?? 0) >= 1, "the failures are counted");
    } finally {
      relay.fault = { kind: "none" };
    }
    // A retry after the relay came back, then the job's row goes (the worker deletes it once
    // the answer is in, a moment after the relay saw the call).
    const cleared = relay.calls.length;
    while (!relay.calls.slice(cleared).some((c) => c.fields.token === "fcm:while-down")) await relay.waitForCalls(relay.calls.length + 1);
    for (let i = 0; i < 200 && (await pendingJobs()).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await pendingJobs(), []);
    const { user } = await uuids(admin.id);
    assert.ok(relay.tokens.has(`${user} 2 fcm:while-down`));
  });

  test("a relay that refuses (bad credentials, 4xx) is not retried", async () => {
    const { owner } = server.fixtures;
    relay.fault = { kind: "status", status: 401, code: "UNAUTHORIZED", msg: "Zulip server auth failure" };
    const seen = relay.calls.length;
    try {
      expectSuccess(await server.api.post(owner, "/users/me/android_gcm_reg_id", { token: "fcm:refused" }));
      await relay.waitForCalls(seen + 1);
      for (let i = 0; i < 50 && (await pendingJobs()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(await pendingJobs(), []);
    } finally {
      relay.fault = { kind: "none" };
    }
    // Stored here all the same: the next registration (the app repeats it) reaches the relay.
    assert.deepEqual((await tokensOf(owner.id)).map((t) => t.token), ["fcm:refused"]);
    assert.equal(relay.calls.length, seen + 1);
  });

  test("the legacy test notification goes through the relay's test call, per device; the relay's answers in upstream's errors", async () => {
    const { member, owner } = server.fixtures;
    const testCalls = () => relay.calls.filter((c) => c.endpoint === "push/test_notification");
    const seen = testCalls().length;
    expectSuccess(await server.api.post(member, "/mobile_push/test_notification", { token: "fcm:token-1" }));
    const [call] = testCalls().slice(seen);
    const { user, realm } = await uuids(member.id);
    const host = new URL(server.url).host;
    assert.deepEqual(call.json, {
      realm_uuid: realm,
      user_uuid: user,
      user_id: member.id,
      token: "fcm:token-1",
      token_kind: 2,
      base_payload: { server: host, realm_id: server.fixtures.realmId, realm_name: "Test Org", realm_uri: server.url, realm_url: server.url, user_id: member.id },
    });
    assert.deepEqual(relay.testOutbox.at(-1), { user_uuid: user, token: "fcm:token-1" });
    // The relay never took the owner's token (it refused it above).
    expectError(await server.api.post(owner, "/mobile_push/test_notification", { token: "fcm:refused" }), "INVALID_REMOTE_PUSH_DEVICE_TOKEN", "Device not recognized by the push bouncer");
    expectError(await server.api.post(owner, "/mobile_push/test_notification", { token: "fcm:token-1" }), "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
    relay.fault = { kind: "status", status: 503 };
    try {
      expectError(await server.api.post(member, "/mobile_push/test_notification", {}), "BAD_REQUEST", "Received 503 from push notification bouncer", 502);
      relay.fault = { kind: "drop" };
      expectError(await server.api.post(member, "/mobile_push/test_notification", {}), "BAD_REQUEST", "ConnectionError while trying to connect to push notification bouncer", 502);
    } finally {
      relay.fault = { kind: "none" };
    }
  });

  test("register-push-server registers this server at the relay once; a second run is harmless", async () => {
    const cli = (args: string[], env: Record<string, string>) => runCli(server.store, ["register-push-server", ...args], { env: { EXTERNAL_URL: "https://chat.example.test", ...env } });
    const missing = await cli(["--contact-email", "admin@example.test"], {});
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /set PUSH_RELAY_URL/);
    const first = await cli(["--contact-email", "admin@example.test"], relay.env());
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { relay: relay.url, server_id: relay.orgId, hostname: "chat.example.test", created: true });
    assert.deepEqual(relay.servers.get(relay.orgId), { zulip_org_key: relay.orgKey, hostname: "chat.example.test", contact_email: "admin@example.test" });
    const again = await cli(["--contact-email", "ops@example.test", "--hostname", "parley.example.test"], relay.env());
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).created, false);
    assert.equal(relay.servers.get(relay.orgId)?.hostname, "parley.example.test");
    // A refusal is reported in the relay's words, never with the key.
    const refused = await cli(["--contact-email", "admin@example.test"], { ...relay.env(), PUSH_RELAY_ORG_KEY: "another-key-entirely-0123456789abcdef" });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /registration failed: the relay refused: Zulip server auth failure: key does not match role \(HTTP 401\)/);
    assert.ok(!refused.stderr.includes("another-key-entirely"));
    const bad = await cli(["--contact-email", "not-an-address"], relay.env());
    assert.notEqual(bad.code, 0);
  });
});

/**
 * End-to-end encrypted push registration (POST /mobile_push/register, FL 406), the test playing
 * the phone against a stand-in relay (test/helpers/push-relay.ts) that opens the sealed
 * registration with its own key: pending then active or failed with the relay's code, the
 * `push_device` events (checked against the FL 420 file) and the `push_devices` snapshot key,
 * idempotent re-registration, a failed one retried, 64-bit ids kept exact, and every refusal.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import sodium from "libsodium-wrappers";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { fl420Validators } from "../helpers/openapi-fl420.ts";
import { startStandInRelay, type StandInRelay } from "../helpers/push-relay.ts";
import { registerQueue, type Queue } from "../helpers/events.ts";
import { forEachStore, useServer } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

type Event = Record<string, unknown> & { id: number; type: string };

/** The phone's side: a key pair of its own, and a registration sealed to the relay's key. */
function phone(relayKey: string, registration: Record<string, unknown>) {
  const keys = sodium.crypto_box_keypair();
  const b64 = (bytes: Uint8Array) => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);
  const sealed = sodium.crypto_box_seal(sodium.from_string(JSON.stringify(registration)), sodium.from_base64(relayKey, sodium.base64_variants.ORIGINAL));
  return { push_public_key: b64(keys.publicKey), bouncer_public_key: relayKey, encrypted_push_registration: b64(sealed) };
}

/** A phone whose key pair the test keeps, to open what the relay delivered. */
function phoneWithKeys(relayKey: string, registration: Record<string, unknown>) {
  const keys = sodium.crypto_box_keypair();
  const sealed = sodium.crypto_box_seal(sodium.from_string(JSON.stringify(registration)), sodium.from_base64(relayKey, sodium.base64_variants.ORIGINAL));
  const b64 = (bytes: Uint8Array) => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);
  const open = (encrypted: string) => JSON.parse(sodium.to_string(sodium.crypto_box_seal_open(sodium.from_base64(encrypted, sodium.base64_variants.ORIGINAL), keys.publicKey, keys.privateKey))) as Record<string, unknown>;
  return { params: { push_public_key: b64(keys.publicKey), bouncer_public_key: relayKey, encrypted_push_registration: b64(sealed) }, open };
}

const now = () => Math.floor(Date.now() / 1000);

forEachStore("E2EE push registration", (store) => {
  let relay: StandInRelay;
  before(async () => {
    await sodium.ready;
    relay = await startStandInRelay();
  });
  const server = useServer(store, () => ({ ...relay.env(), PUSH_RELAY_RETRY_BASE_MS: "100" }));
  after(async () => {
    await relay?.close();
  });

  const register = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/mobile_push/register", params, { validate: false });
  const devices = async (user: Credentials) => {
    const listed = (await registerQueue(server.api, user, { fetch_event_types: ["push_device"] })).state.push_devices as Record<string, unknown>;
    const valid = fl420Validators().schema("register_queue_200_response_allOf_push_devices_value");
    for (const value of Object.values(listed)) assert.ok(valid(value), `push_devices value does not match the FL 420 file: ${JSON.stringify(value)}`);
    return listed;
  };
  /** Long-polls until a push_device event for `accountId` arrives; checked against the FL 420 file. */
  async function deviceEvent(queue: Queue, accountId: string): Promise<Event> {
    for (;;) {
      const res = await server.api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId }, { validate: false });
      const events = expectSuccess(res).events as Event[];
      if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
      const found = events.find((e) => e.type === "push_device" && e.push_account_id === accountId);
      if (!found) continue;
      const { event } = fl420Validators();
      assert.ok(event(found), `push_device event does not match the FL 420 file: ${JSON.stringify(found)} ${JSON.stringify(event.errors?.slice(0, 3))}`);
      return found;
    }
  }

  test("registered, pending, then active once the relay opened it; the snapshot lists it", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member, { event_types: ["push_device"] });
    const sealed = phone(relay.publicKey, { token: "fcm-token-e2ee", token_kind: "fcm", timestamp: now() });
    expectSuccess(await register(member, { token_kind: "fcm", push_account_id: 2408, ...sealed }));
    const { id: _id, ...event } = await deviceEvent(queue, "2408");
    assert.deepEqual(event, { type: "push_device", push_account_id: "2408", status: "active" });
    assert.deepEqual(await devices(member), { "2408": { status: "active", error_code: null } });
    const [device] = [...relay.devices.values()].filter((d) => d.push_account_id === "2408");
    assert.deepEqual(device.registration, { token: "fcm-token-e2ee", token_kind: "fcm", timestamp: device.registration.timestamp });
    // Again with the same id: success, and nothing sent.
    const calls = relay.calls.length;
    expectSuccess(await register(member, { token_kind: "fcm", push_account_id: 2408, ...sealed }));
    assert.equal(relay.calls.length, calls);
  });

  test("a 64-bit push_account_id is kept exact; an iOS registration carries its app id", async () => {
    const { moderator } = server.fixtures;
    const id = "9007199254740993";
    const queue = await registerQueue(server.api, moderator, { event_types: ["push_device"] });
    expectSuccess(await register(moderator, { token_kind: "apns", push_account_id: id, ...phone(relay.publicKey, { token: "ab".repeat(32), token_kind: "apns", timestamp: now(), ios_app_id: "org.zulip.Zulip" }) }));
    assert.equal((await deviceEvent(queue, id)).status, "active");
    assert.deepEqual(Object.keys(await devices(moderator)), [id]);
    assert.ok(relay.calls.some((c) => c.fields.push_account_id === id));
  });

  test("the relay's refusals fail the registration with its code; registering again retries it", async () => {
    const { admin } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["push_device"] });
    const ok = () => phone(relay.publicKey, { token: "fcm-admin", token_kind: "fcm", timestamp: now() });
    expectSuccess(await register(admin, { token_kind: "fcm", push_account_id: 1, ...ok(), bouncer_public_key: "c29tZSBvdGhlciBrZXk=" }));
    const { id: _a, ...wrongKey } = await deviceEvent(queue, "1");
    assert.deepEqual(wrongKey, { type: "push_device", push_account_id: "1", status: "failed", error_code: "INVALID_BOUNCER_PUBLIC_KEY" });
    expectSuccess(await register(admin, { token_kind: "fcm", push_account_id: 2, ...ok(), encrypted_push_registration: "bm90IHNlYWxlZA==" }));
    assert.equal((await deviceEvent(queue, "2")).error_code, "BAD_REQUEST");
    expectSuccess(await register(admin, { token_kind: "fcm", push_account_id: 3, ...phone(relay.publicKey, { token: "fcm-old", token_kind: "fcm", timestamp: now() - 2 * 86_400 }) }));
    assert.equal((await deviceEvent(queue, "3")).error_code, "REQUEST_EXPIRED");
    assert.deepEqual(await devices(admin), {
      "1": { status: "failed", error_code: "INVALID_BOUNCER_PUBLIC_KEY" },
      "2": { status: "failed", error_code: "BAD_REQUEST" },
      "3": { status: "failed", error_code: "REQUEST_EXPIRED" },
    });
    // A failed registration is tried again when the app registers again.
    expectSuccess(await register(admin, { token_kind: "fcm", push_account_id: 1, ...ok() }));
    assert.equal((await deviceEvent(queue, "1")).status, "active");
    assert.deepEqual((await devices(admin))["1"], { status: "active", error_code: null });
  });

  test("an unreachable relay leaves it pending, retried until the relay answers", async () => {
    const { owner } = server.fixtures;
    const queue = await registerQueue(server.api, owner, { event_types: ["push_device"] });
    relay.fault = { kind: "status", status: 502 };
    const seen = relay.calls.length;
    try {
      expectSuccess(await register(owner, { token_kind: "fcm", push_account_id: 77, ...phone(relay.publicKey, { token: "fcm-owner", token_kind: "fcm", timestamp: now() }) }));
      await relay.waitForCalls(seen + 2);
      assert.deepEqual((await devices(owner))["77"], { status: "pending", error_code: null });
    } finally {
      relay.fault = { kind: "none" };
    }
    assert.equal((await deviceEvent(queue, "77")).status, "active");
  });

  test("a test notification: sealed to each active device and opened by the phone, field by field; the relay's failures in upstream's codes", async () => {
    const { guest } = server.fixtures;
    const notify = (params: Record<string, unknown> = {}) => server.api.post(guest, "/mobile_push/e2ee/test_notification", params, { validate: false });
    expectError(await notify(), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
    const queue = await registerQueue(server.api, guest, { event_types: ["push_device"] });
    const android = phoneWithKeys(relay.publicKey, { token: "fcm-guest", token_kind: "fcm", timestamp: now() });
    const ios = phoneWithKeys(relay.publicKey, { token: "cd".repeat(32), token_kind: "apns", timestamp: now(), ios_app_id: "org.zulip.Zulip" });
    expectSuccess(await register(guest, { token_kind: "fcm", push_account_id: 500, ...android.params }));
    assert.equal((await deviceEvent(queue, "500")).status, "active");
    expectSuccess(await register(guest, { token_kind: "apns", push_account_id: 501, ...ios.params }));
    assert.equal((await deviceEvent(queue, "501")).status, "active");

    const before = relay.outbox.length;
    expectSuccess(await notify());
    const sent = relay.outbox.slice(before);
    assert.deepEqual(sent.map((s) => s.token).sort(), ["cd".repeat(32), "fcm-guest"].sort());
    const settings = expectSuccess(await server.api.get(null, "/server_settings"));
    for (const entry of sent) {
      const fcm = entry.token === "fcm-guest";
      const payload = entry.request.payload as { push_account_id: number; encrypted_data: string; aps?: unknown };
      const opened = (fcm ? android : ios).open(payload.encrypted_data);
      assert.deepEqual(opened, { realm_url: settings.realm_url, realm_name: settings.realm_name, user_id: guest.id, type: "test", time: opened.time });
      assert.equal(typeof opened.time, "number");
      if (fcm) {
        assert.deepEqual({ ...entry.request, payload: undefined }, { device_id: entry.device_id, fcm_priority: "high", payload: undefined });
        assert.deepEqual(Object.keys(payload), ["push_account_id", "encrypted_data"]);
        assert.equal(payload.push_account_id, 500);
      } else {
        assert.deepEqual(entry.request.http_headers, { apns_priority: 10, apns_push_type: "alert" });
        assert.deepEqual(payload.aps, { "mutable-content": 1, alert: { title: "New notification" } });
        assert.equal(payload.push_account_id, 501);
      }
    }
    // One device, by its id.
    expectSuccess(await notify({ push_account_id: 501 }));
    assert.deepEqual(relay.outbox.slice(before + 2).map((s) => s.token), ["cd".repeat(32)]);
    expectError(await notify({ push_account_id: 999 }), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");

    const faults: Array<[StandInRelay["fault"], string, string, number]> = [
      [{ kind: "drop" }, "FAILED_TO_CONNECT_BOUNCER", "Network error while connecting to Zulip push notification service.", 502],
      [{ kind: "status", status: 500 }, "INTERNAL_SERVER_ERROR_ON_BOUNCER", "Internal server error on Zulip push notification service, retry later.", 502],
      [{ kind: "status", status: 403, code: "MISSING_REMOTE_REALM", msg: "Organization not registered" }, "ADMIN_ACTION_REQUIRED", "Push notification configuration issue on server, contact the server administrator or retry later.", 403],
      [{ kind: "status", status: 400, code: "PUSH_NOTIFICATIONS_DISALLOWED", msg: "Your plan doesn't allow sending push notifications." }, "ADMIN_ACTION_REQUIRED", "Push notification configuration issue on server, contact the server administrator or retry later.", 403],
      [{ kind: "status", status: 400, code: "BAD_REQUEST", msg: "Invalid push request" }, "BAD_REQUEST", "Invalid push request", 400],
    ];
    for (const [fault, code, msg, status] of faults) {
      relay.fault = fault;
      try {
        expectError(await notify(), code, msg, status);
      } finally {
        relay.fault = { kind: "none" };
      }
    }

    // The relay says both devices are gone: they are forgotten, and nothing is left to notify.
    for (const entry of sent) relay.goneDevices.add(entry.device_id);
    expectError(await notify(), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
    assert.deepEqual(await devices(guest), {});
  });

  test("refusals: bad parameters, bots, no credentials; nothing stored", async () => {
    const { member, guest } = server.fixtures;
    const sealed = phone(relay.publicKey, { token: "t", token_kind: "fcm", timestamp: now() });
    expectError(await register(member, { token_kind: "gcm", push_account_id: 5, ...sealed }), "BAD_REQUEST", "Invalid token_kind");
    expectError(await register(member, { token_kind: "fcm", push_account_id: "five", ...sealed }), "BAD_REQUEST", "push_account_id is not an integer");
    expectError(await register(member, { token_kind: "fcm", push_account_id: "-5", ...sealed }), "BAD_REQUEST", "push_account_id is not an integer");
    expectError(await register(member, { token_kind: "fcm", push_account_id: "9223372036854775808", ...sealed }), "BAD_REQUEST", "push_account_id is not an integer");
    expectError(await register(member, { token_kind: "fcm", push_account_id: 5 }), "REQUEST_VARIABLE_MISSING", "Missing 'push_public_key' argument");
    expectError(await register(server.fixtures.bot, { token_kind: "fcm", push_account_id: 5, ...sealed }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await register(null, { token_kind: "fcm", push_account_id: 5, ...sealed }), "UNAUTHORIZED", NO_AUTH, 401);
    assert.equal(Object.keys(await devices(guest)).includes("5"), false);
    assert.equal(Object.keys(await devices(member)).includes("5"), false);
  });
});

forEachStore("E2EE push registration without a relay", (store) => {
  before(async () => {
    await sodium.ready;
  });
  const server = useServer(store);

  test("registering: PUSH_SERVICE_NOT_CONFIGURED, and an empty push_devices; the test notification: no device (SPEC's first error)", async () => {
    const { member } = server.fixtures;
    const res = await server.api.post(member, "/mobile_push/register", { token_kind: "fcm", push_account_id: 1, push_public_key: "a", bouncer_public_key: "b", encrypted_push_registration: "c" }, { validate: false });
    expectError(res, "PUSH_SERVICE_NOT_CONFIGURED", "Server is not configured to use push notification service.");
    assert.deepEqual((await registerQueue(server.api, member, { fetch_event_types: ["push_device"] })).state.push_devices, {});
    expectError(await server.api.post(member, "/mobile_push/e2ee/test_notification", {}, { validate: false }), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
    expectError(await server.api.post(member, "/mobile_push/e2ee/test_notification", { push_account_id: 1 }, { validate: false }), "NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
    expectError(await server.api.post(server.fixtures.bot, "/mobile_push/e2ee/test_notification", {}, { validate: false }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
  });
});

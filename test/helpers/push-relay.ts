/**
 * A stand-in for Zulip's push relay (the "bouncer"), a real HTTP server on 127.0.0.1 that behaves
 * like zilencer's views for the calls Parley makes: it checks the server's HTTP Basic
 * credentials, keeps the registered tokens, records every call, and can be told to fail
 * (a dropped connection, a 5xx, or a refusal with upstream's status and code).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import sodium from "libsodium-wrappers";
import { withDb } from "./db.ts";
import type { TestServer } from "./server.ts";

/** One call the relay received. */
export type RelayCall = { endpoint: string; fields: Record<string, string>; json: unknown };

/** How the relay answers the next calls. */
export type RelayFault = { kind: "none" } | { kind: "drop" } | { kind: "status"; status: number; code?: string; msg?: string };

export type StandInRelay = {
  url: string;
  orgId: string;
  orgKey: string;
  calls: RelayCall[];
  /** Registered tokens, keyed `${user_uuid} ${token_kind} ${token}`. */
  tokens: Map<string, Record<string, string>>;
  /** The relay's registration key (X25519), as the apps carry its public half: standard base64. */
  publicKey: string;
  /** E2EE devices by device id, with what the relay read from their sealed registration. */
  devices: Map<number, { realm_uuid: string; push_account_id: string; registration: Record<string, unknown> }>;
  /** Organizations the relay knows (null: all), else MISSING_REMOTE_REALM. */
  knownRealms: Set<string> | null;
  /** Device ids the relay reports gone (uninstalled) in delete_device_ids. */
  goneDevices: Set<number>;
  /** Servers registered through server/register, by id, with the key, host name and contact they gave. */
  servers: Map<string, { zulip_org_key: string; hostname: string; contact_email: string }>;
  /** Tokens the relay reports gone (uninstalled) in a legacy notify's deleted_devices. */
  goneTokens: Set<string>;
  /** What a legacy notify would have handed to FCM or APNs, one entry per registered token. */
  legacyOutbox: Array<{ user_uuid: string; kind: "fcm" | "apns"; token: string; payload: Record<string, unknown>; priority?: string }>;
  /** The legacy test notifications the relay would have sent (push/test_notification), one per call. */
  testOutbox: Array<{ user_uuid: string; token: string }>;
  /** What e2ee/notify would have handed to FCM or APNs, one entry per device. */
  outbox: Array<{ device_id: number; token: string; request: Record<string, unknown> }>;
  fault: RelayFault;
  /** Resolves once `count` calls have been recorded (answered or failed). */
  waitForCalls(count: number): Promise<RelayCall[]>;
  /** The env that points a server at this relay. */
  env(): Record<string, string>;
  close(): Promise<void>;
};

function json(res: http.ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Starts the stand-in relay, with its own server credentials. */
export async function startStandInRelay(): Promise<StandInRelay> {
  const orgId = "6cde5f7a-1f7e-4978-9716-49f69ebfc9fe";
  const orgKey = "relay-key-of-this-test-server-0123456789";
  await sodium.ready;
  const keys = sodium.crypto_box_keypair();
  const b64 = (bytes: Uint8Array) => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);
  const waiters: Array<{ count: number; resolve: (calls: RelayCall[]) => void }> = [];
  const relay: StandInRelay = {
    url: "",
    orgId,
    orgKey,
    calls: [],
    tokens: new Map(),
    publicKey: b64(keys.publicKey),
    devices: new Map(),
    knownRealms: null,
    goneDevices: new Set(),
    servers: new Map(),
    goneTokens: new Set(),
    legacyOutbox: [],
    testOutbox: [],
    outbox: [],
    fault: { kind: "none" },
    waitForCalls: (count) =>
      new Promise((resolve) => {
        if (relay.calls.length >= count) resolve(relay.calls.slice());
        else waiters.push({ count, resolve });
      }),
    env: () => ({ PUSH_RELAY_URL: relay.url, PUSH_RELAY_ORG_ID: orgId, PUSH_RELAY_ORG_KEY: orgKey }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const record = (call: RelayCall) => {
    relay.calls.push(call);
    for (const w of waiters.splice(0)) {
      if (relay.calls.length >= w.count) w.resolve(relay.calls.slice());
      else waiters.push(w);
    }
  };

  /** zilencer's do_register_remote_push_device: open the sealed registration, check it, give a device id. */
  const e2eeRegister = (res: http.ServerResponse, f: Record<string, string>) => {
    if (relay.knownRealms !== null && !relay.knownRealms.has(f.realm_uuid)) return json(res, 403, { result: "error", code: "MISSING_REMOTE_REALM", msg: "Organization not registered" });
    if (f.bouncer_public_key !== relay.publicKey) return json(res, 400, { result: "error", code: "INVALID_BOUNCER_PUBLIC_KEY", msg: "Invalid bouncer_public_key" });
    let registration: Record<string, unknown>;
    try {
      const opened = sodium.crypto_box_seal_open(sodium.from_base64(f.encrypted_push_registration, sodium.base64_variants.ORIGINAL), keys.publicKey, keys.privateKey);
      registration = JSON.parse(sodium.to_string(opened)) as Record<string, unknown>;
      if (typeof registration.token !== "string" || !["fcm", "apns"].includes(String(registration.token_kind)) || typeof registration.timestamp !== "number") throw new Error("shape");
    } catch {
      return json(res, 400, { result: "error", code: "BAD_REQUEST", msg: "Invalid encrypted_push_registration" });
    }
    if (Date.now() / 1000 - (registration.timestamp as number) > 86_400) return json(res, 400, { result: "error", code: "REQUEST_EXPIRED", msg: "Request expired" });
    for (const [id, device] of relay.devices) {
      if (device.push_account_id === f.push_account_id && device.registration.token === registration.token) return json(res, 200, { result: "success", msg: "", device_id: id });
    }
    const id = relay.devices.size + 1;
    relay.devices.set(id, { realm_uuid: f.realm_uuid, push_account_id: f.push_account_id, registration });
    return json(res, 200, { result: "success", msg: "", device_id: id });
  };

  /** zilencer's remote_server_send_e2ee_push_notification: each request's shape checked against its device's kind. */
  const e2eeNotify = (res: http.ServerResponse, body: { realm_uuid?: string; push_requests?: Array<Record<string, unknown>> }) => {
    if (relay.knownRealms !== null && !relay.knownRealms.has(body.realm_uuid ?? "")) return json(res, 403, { result: "error", code: "MISSING_REMOTE_REALM", msg: "Organization not registered" });
    const gone: number[] = [];
    let apple = 0;
    let android = 0;
    for (const request of body.push_requests ?? []) {
      const id = Number(request.device_id);
      const device = relay.devices.get(id);
      if (!device || relay.goneDevices.has(id)) {
        gone.push(id);
        continue;
      }
      const payload = request.payload as Record<string, unknown> | undefined;
      const apns = device.registration.token_kind === "apns";
      const shapeOk = apns ? request.http_headers !== undefined && payload?.aps !== undefined : typeof request.fcm_priority === "string" && payload?.aps === undefined;
      if (!shapeOk || typeof payload?.encrypted_data !== "string") return json(res, 400, { result: "error", code: "BAD_REQUEST", msg: "Invalid push request" });
      relay.outbox.push({ device_id: id, token: String(device.registration.token), request });
      if (apns) apple++;
      else android++;
    }
    return json(res, 200, { result: "success", msg: "", apple_successfully_sent_count: apple, android_successfully_sent_count: android, delete_device_ids: gone, realm_push_status: { can_push: true, expected_end_timestamp: null } });
  };

  /**
   * zilencer's remote_server_notify_push: the user's tokens registered here, narrowed to the lists
   * the server sent, get the FCM or APNs payload; gone tokens are reported in deleted_devices.
   */
  const legacyNotify = (res: http.ServerResponse, body: Record<string, unknown>) => {
    if (relay.knownRealms !== null && !relay.knownRealms.has(String(body.realm_uuid))) return json(res, 403, { result: "error", code: "MISSING_REMOTE_REALM", msg: "Organization not registered" });
    const lists = { fcm: (body.android_devices ?? []) as string[], apns: (body.apple_devices ?? []) as string[] };
    const deleted = { android_devices: [] as string[], apple_devices: [] as string[] };
    let android = 0;
    let apple = 0;
    for (const [, f] of relay.tokens) {
      if (f.user_uuid !== body.user_uuid) continue;
      const kind = f.token_kind === "1" ? "apns" : "fcm";
      if (!lists[kind].includes(f.token)) continue;
      if (relay.goneTokens.has(f.token)) {
        (kind === "apns" ? deleted.apple_devices : deleted.android_devices).push(f.token);
        continue;
      }
      const payload = (kind === "apns" ? body.apns_payload : body.gcm_payload) as Record<string, unknown>;
      const priority = kind === "fcm" ? String((body.gcm_options as { priority?: string } | undefined)?.priority ?? "normal") : undefined;
      relay.legacyOutbox.push({ user_uuid: String(body.user_uuid), kind, token: f.token, payload, priority });
      if (kind === "apns") apple++;
      else android++;
    }
    return json(res, 200, { result: "success", msg: "", total_android_devices: android, total_apple_devices: apple, deleted_devices: deleted, realm: { can_push: true, expected_end_timestamp: null } });
  };

  /** zilencer's remote_server_send_test_notification: the token must be registered for the user, else INVALID_REMOTE_PUSH_DEVICE_TOKEN. */
  const testNotify = (res: http.ServerResponse, body: Record<string, unknown>) => {
    const fields = relay.tokens.get(`${String(body.user_uuid)} ${String(body.token_kind)} ${String(body.token)}`);
    if (!fields || typeof body.base_payload !== "object") return json(res, 400, { result: "error", code: "INVALID_REMOTE_PUSH_DEVICE_TOKEN", msg: "Device not recognized by the push bouncer" });
    relay.testOutbox.push({ user_uuid: String(body.user_uuid), token: String(body.token) });
    return json(res, 200, { result: "success", msg: "" });
  };

  /** zilencer's register_remote_server: unauthenticated, the id and key come in the form; a known id must bring its key. */
  const serverRegister = (res: http.ServerResponse, f: Record<string, string>) => {
    if (!f.zulip_org_id || !f.zulip_org_key || !f.hostname || !f.contact_email) return json(res, 400, { result: "error", code: "BAD_REQUEST", msg: "Missing fields" });
    if (!/^[0-9a-f-]{36}$/.test(f.zulip_org_id)) return json(res, 400, { result: "error", code: "BAD_REQUEST", msg: "Invalid UUID" });
    const known = relay.servers.get(f.zulip_org_id);
    if (known && known.zulip_org_key !== f.zulip_org_key) return json(res, 401, { result: "error", code: "UNAUTHORIZED", msg: "Zulip server auth failure: key does not match role" });
    relay.servers.set(f.zulip_org_id, { zulip_org_key: f.zulip_org_key, hostname: f.hostname, contact_email: f.contact_email });
    return json(res, 200, { result: "success", msg: "", created: known === undefined });
  };

  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      const endpoint = (req.url ?? "").replace(/^\/api\/v1\/remotes\//, "");
      const isJson = (req.headers["content-type"] ?? "").startsWith("application/json");
      const call: RelayCall = { endpoint, fields: isJson ? {} : Object.fromEntries(new URLSearchParams(body)), json: isJson ? JSON.parse(body || "null") : null };
      record(call);
      const fault = relay.fault;
      if (fault.kind === "drop") return req.socket.destroy();
      if (fault.kind === "status") return json(res, fault.status, { result: "error", msg: fault.msg ?? "failure", ...(fault.code ? { code: fault.code } : {}) });
      if (endpoint === "server/register") return serverRegister(res, call.fields);
      const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
      const [user, key] = auth ? Buffer.from(auth[1], "base64").toString().split(":") : [];
      if (user !== orgId || key !== orgKey) return json(res, 401, { result: "error", code: "UNAUTHORIZED", msg: "Zulip server auth failure: key does not match role" });
      const f = call.fields;
      const key3 = `${f.user_uuid} ${f.token_kind} ${f.token}`;
      if (endpoint === "push/register") {
        if (!f.user_uuid || !f.realm_uuid || !f.token || !["1", "2"].includes(f.token_kind)) return json(res, 400, { result: "error", code: "BAD_REQUEST", msg: "Missing fields" });
        relay.tokens.set(key3, f);
        return json(res, 200, { result: "success", msg: "" });
      }
      if (endpoint === "push/unregister") {
        if (!relay.tokens.delete(key3)) return json(res, 400, { result: "error", code: "BAD_REQUEST", msg: "Token does not exist" });
        return json(res, 200, { result: "success", msg: "" });
      }
      if (endpoint === "push/e2ee/register") return e2eeRegister(res, f);
      if (endpoint === "push/notify") return legacyNotify(res, call.json as Record<string, unknown>);
      if (endpoint === "push/test_notification") return testNotify(res, call.json as Record<string, unknown>);
      if (endpoint === "push/e2ee/notify") return e2eeNotify(res, call.json as { realm_uuid?: string; push_requests?: Array<Record<string, unknown>> });
      return json(res, 404, { result: "error", code: "BAD_REQUEST", msg: "Endpoint does not exist" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return relay;
}

/** Resolves once the server has no push work waiting (every send's job decided, every relay call made). */
export async function pushWorkSettled(server: TestServer): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const left = await withDb(server, (db) => db.selectFrom("push_relay_jobs").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow());
    if (Number(left.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("push work still waiting after 10 s");
}

/**
 * Compressed answers (http/compression.ts): a JSON answer of at least COMPRESS_MIN_BYTES (2,048
 * here) goes out in brotli or gzip as the request's Accept-Encoding says, whether Fastify sends
 * it (POST /register, GET /messages) or it is written straight to the connection (a long poll's
 * answer); smaller answers and requests that accept neither get the plain text.
 */
import assert from "node:assert/strict";
import http from "node:http";
import zlib from "node:zlib";
import { after, before, describe, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { registerQueue } from "../helpers/events.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { STORES } from "../helpers/stores.ts";

type RawAnswer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; json: Record<string, unknown> };

/** A request with exactly the Accept-Encoding given, its body decoded by its Content-Encoding. */
function rawRequest(server: TestServer, user: Credentials, method: string, path: string, acceptEncoding: string | null, form?: Record<string, string>): Promise<RawAnswer> {
  const url = new URL(`/api/v1${path}`, server.url);
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}` };
  if (acceptEncoding !== null) headers["accept-encoding"] = acceptEncoding;
  if (body) headers["content-type"] = "application/x-www-form-urlencoded";
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(parts);
        const encoding = res.headers["content-encoding"];
        const text = encoding === "br" ? zlib.brotliDecompressSync(raw) : encoding === "gzip" ? zlib.gunzipSync(raw) : raw;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw, json: JSON.parse(text.toString("utf8")) as Record<string, unknown> });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

for (const store of STORES) {
  describe(`compressed answers [${store}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(store, { COMPRESS_MIN_BYTES: "2048" });
    });
    after(() => server.stop());

    test("a register answer goes in brotli, or gzip, by Accept-Encoding; plain without it", async () => {
      const { owner } = server.fixtures;
      const plain = await rawRequest(server, owner, "POST", "/register", null, { fetch_event_types: '["realm_user"]' });
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.equal(Number(plain.headers["content-length"]), plain.body.length);
      assert.equal(plain.headers.vary, "accept-encoding");
      const br = await rawRequest(server, owner, "POST", "/register", "gzip, deflate, br", { fetch_event_types: '["realm_user"]' });
      assert.equal(br.headers["content-encoding"], "br");
      assert.equal(br.headers.vary, "accept-encoding");
      assert.ok(br.body.length * 3 < plain.body.length, `${br.body.length} of ${plain.body.length} bytes`);
      assert.deepEqual(Object.keys(br.json).sort(), Object.keys(plain.json).sort());
      assert.deepEqual(br.json.realm_users, plain.json.realm_users);
      const gz = await rawRequest(server, owner, "POST", "/register", "gzip;q=1, br;q=0", { fetch_event_types: '["realm_user"]' });
      assert.equal(gz.headers["content-encoding"], "gzip");
      assert.deepEqual(gz.json.realm_users, plain.json.realm_users);
      const none = await rawRequest(server, owner, "POST", "/register", "identity", { fetch_event_types: '["realm_user"]' });
      assert.equal(none.headers["content-encoding"], undefined);
    });

    test("answers under COMPRESS_MIN_BYTES go plain, and so do errors", async () => {
      const { owner } = server.fixtures;
      const me = await rawRequest(server, owner, "GET", "/users/me", "br, gzip");
      assert.ok(me.body.length < 2048);
      assert.equal(me.headers["content-encoding"], undefined);
      assert.equal(me.json.result, "success");
      const bad = await rawRequest(server, owner, "GET", "/messages/999999999", "br, gzip");
      assert.equal(bad.status, 400);
      assert.equal(bad.headers["content-encoding"], undefined);
      assert.equal(bad.json.code, "BAD_REQUEST");
    });

    test("a long poll's answer, written straight to the connection, is compressed past the threshold", async () => {
      const { owner, member } = server.fixtures;
      const queue = await registerQueue(server.api, member, { event_types: ["message"] });
      const poll = rawRequest(server, member, "GET", `/events?queue_id=${queue.queueId}&last_event_id=${queue.lastEventId}`, "br");
      // Between the two thresholds: under 2,048 bytes the answer is plain (the env var is read).
      const small = "a".repeat(1200);
      expectSuccess(await server.api.post(owner, "/messages", { type: "direct", to: JSON.stringify([member.id]), content: small }));
      const first = await poll;
      assert.equal(first.headers["content-encoding"], undefined);
      const events = first.json.events as Array<{ id: number; message: { content: string } }>;
      assert.equal(events.length, 1);
      const content = "Lorem ipsum dolor sit amet. ".repeat(400);
      const second = rawRequest(server, member, "GET", `/events?queue_id=${queue.queueId}&last_event_id=${events[0].id}`, "gzip, br");
      expectSuccess(await server.api.post(owner, "/messages", { type: "direct", to: JSON.stringify([member.id]), content }));
      const answer = await second;
      assert.equal(answer.headers["content-encoding"], "br");
      assert.equal(Number(answer.headers["content-length"]), answer.body.length);
      assert.ok(answer.body.length < 2048);
      const [event] = answer.json.events as Array<{ message: { content: string } }>;
      assert.ok(event.message.content.includes("Lorem ipsum dolor sit amet."));
    });
  });
}

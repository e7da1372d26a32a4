/**
 * Malformed requests (issue 11): each class of body, URL and header the parsers refuse answers
 * Zulip's envelope with a 4xx and logs no error; over-long upload names are cut, keeping the
 * extension, instead of failing in the file system.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { basicAuth, expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { fetchRaw, uploadFile } from "./uploads-support.ts";
import { describeEachStore } from "../helpers/suite.ts";

/** Small enough to test the limits with small requests. */
const MAX_BODY_BYTES = 200_000;

type Sent = { method?: string; path: string; auth?: Credentials | null; contentType?: string; body?: string | Buffer; headers?: Record<string, string> };

async function send(server: TestServer, req: Sent): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (req.auth) headers.authorization = basicAuth(req.auth);
  if (req.contentType) headers["content-type"] = req.contentType;
  const body = typeof req.body === "string" || req.body === undefined ? req.body : new Uint8Array(req.body);
  const res = await fetch(server.url + req.path, { method: req.method ?? "POST", headers, body });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers };
}

/** Sends bytes on a plain socket (half-closing it) and returns the status and parsed body. */
function sendRaw(server: TestServer, bytes: string): Promise<ApiResponse> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)), headers: new Headers() });
    });
    socket.end(bytes);
  });
}

const BROKEN_MULTIPART = "--xyz\r\nbroken";
const MULTIPART = "multipart/form-data; boundary=xyz";

describeEachStore("malformed requests", { env: { RATE_LIMITS: "off", MAX_BODY_BYTES: String(MAX_BODY_BYTES) } }, (server) => {
  test("a broken multipart body is a 400 on every kind of route, with or without credentials", async () => {
    const { member } = server.fixtures;
    const routes: Array<[string, string, Credentials | null]> = [
      ["POST", "/api/v1/fetch_api_key", null],
      ["POST", "/api/v1/messages", member],
      ["PATCH", "/api/v1/users/me/subscriptions/muted_topics", member],
      ["DELETE", "/api/v1/users/me/subscriptions", member],
      ["POST", "/api/v1/user_uploads", member],
      ["POST", "/api/v1/messages", null],
    ];
    for (const [method, path, auth] of routes) {
      expectError(await send(server, { method, path, auth, contentType: MULTIPART, body: BROKEN_MULTIPART }), "BAD_REQUEST", "Malformed multipart body");
    }
  });

  test("multipart without a boundary, cut inside a part, or without any boundary line is a 400", async () => {
    const { member } = server.fixtures;
    const bodies: Array<[string, string]> = [
      ["multipart/form-data", "abc"],
      [MULTIPART, '--xyz\r\nContent-Disposition: form-data; name="content"\r\n\r\nhello'],
      [MULTIPART, "garbage with no boundary at all"],
    ];
    for (const [contentType, body] of bodies) {
      expectError(await send(server, { path: "/api/v1/messages/render", auth: member, contentType, body }), "BAD_REQUEST", "Malformed multipart body");
    }
    // A part without a Content-Disposition names no field: it is skipped.
    const nameless = await send(server, { path: "/api/v1/messages/render", auth: member, contentType: MULTIPART, body: "--xyz\r\nNonsense\r\n\r\nx\r\n--xyz--\r\n" });
    expectError(nameless, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
  });

  test("well-formed multipart still works: fields, repeated fields, prototype names refused", async () => {
    const { member } = server.fixtures;
    const form = (fields: Array<[string, string]>) =>
      fields.map(([k, v]) => `--xyz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join("") + "--xyz--\r\n";
    const ok = expectSuccess(await send(server, { path: "/api/v1/messages/render", auth: member, contentType: MULTIPART, body: form([["content", "**hi**"]]) }));
    assert.equal(ok.rendered, "<p><strong>hi</strong></p>");
    const twice = await send(server, { path: "/api/v1/messages/render", auth: member, contentType: MULTIPART, body: form([["content", "a"], ["content", "b"]]) });
    expectError(twice, "BAD_REQUEST", "content is not a string");
    const proto = await send(server, { path: "/api/v1/messages/render", auth: member, contentType: MULTIPART, body: form([["__proto__", "x"]]) });
    assert.equal(proto.status, 400);
    assert.equal(proto.body.result, "error");
  });

  test("a multipart field over the body limit, sent chunked, is a 413", async () => {
    const field = `--xyz\r\nContent-Disposition: form-data; name="content"\r\n\r\n${"a".repeat(MAX_BODY_BYTES + 10)}\r\n--xyz--\r\n`;
    const chunked = `${Buffer.byteLength(field).toString(16)}\r\n${field}\r\n0\r\n\r\n`;
    const head = `POST /api/v1/messages/render HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: ${basicAuth(server.fixtures.member)}\r\nContent-Type: ${MULTIPART}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    expectError(await sendRaw(server, head + chunked), "BAD_REQUEST", `Request body too large (limit: ${MAX_BODY_BYTES} bytes)`, 413);
  });

  test("broken JSON, unsupported content types and odd charsets answer the envelope", async () => {
    const { member } = server.fixtures;
    expectError(await send(server, { path: "/api/v1/fetch_api_key", contentType: "application/json", body: '{"username":' }), "BAD_REQUEST", "Malformed JSON");
    const xml = await send(server, { path: "/api/v1/messages/render", auth: member, contentType: "application/xml", body: "<a/>" });
    assert.equal(xml.status, 415);
    assert.equal(xml.body.result, "error");
    assert.equal(xml.body.code, "BAD_REQUEST");
    for (const contentType of ["application/x-www-form-urlencoded; charset=utf-16", "application/x-www-form-urlencoded; charset=klingon"]) {
      const res = await send(server, { path: "/api/v1/messages/render", auth: member, contentType, body: "content=hi" });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const invalid = Buffer.concat([Buffer.from("content="), Buffer.from([0xff, 0xfe, 0xc0, 0xaf])]);
    expectSuccess(await send(server, { path: "/api/v1/messages/render", auth: member, contentType: "application/x-www-form-urlencoded", body: invalid }));
  });

  test("a body shorter than its Content-Length, or a Content-Length that is not a number, is a 400", async () => {
    const head = (extra: string) => `POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n${extra}\r\n`;
    expectError(await sendRaw(server, head("Content-Length: 1000\r\n") + "username=a"), "BAD_REQUEST", "Malformed HTTP request");
    expectError(await sendRaw(server, head("Content-Length: abc\r\n") + "username=a"), "BAD_REQUEST", "Malformed HTTP request");
    expectError(await sendRaw(server, "NOT HTTP AT ALL\r\n\r\n"), "BAD_REQUEST", "Malformed HTTP request");
  });

  test("%FF in a path is a 400 in the envelope, on API and file routes", async () => {
    const { member } = server.fixtures;
    for (const path of ["/api/v1/users/%FF", "/api/v1/users/me/%FF%FE/topics", "/user_uploads/1/%FF/x.txt", "/user_avatars/%C0%AF/emoji/images/1.png"]) {
      expectError(await send(server, { method: "GET", path, auth: member }), "BAD_REQUEST", "Malformed URL: not valid percent-encoded UTF-8");
    }
  });

  test("an over-long path segment is a 414 in the envelope; long upload names still route", async () => {
    const res = await send(server, { method: "GET", path: `/api/v1/users/${"9".repeat(2000)}`, auth: server.fixtures.member });
    expectError(res, "BAD_REQUEST", "URL path segment too long (limit: 1024 characters)", 414);
    const ordinary = await send(server, { method: "GET", path: `/api/v1/streams/${"9".repeat(300)}`, auth: server.fixtures.member });
    expectError(ordinary, "BAD_REQUEST", "stream_id is too large");
  });

  test("a query string over the header limit is a 431 in the envelope", async () => {
    const res = await send(server, { method: "GET", path: `/api/v1/users/me?x=${"a".repeat(20_000)}`, auth: server.fixtures.member });
    expectError(res, "BAD_REQUEST", "Request headers or URL too large", 431);
  });

  test("a 5,000-character upload name is cut to 255 bytes keeping the extension; the file is served", async () => {
    const { member } = server.fixtures;
    const name = "a".repeat(5000) + ".txt";
    const up = expectSuccess(await uploadFile(server, member, name, "hello"));
    const stored = decodeURIComponent(up.url.split("/").pop());
    assert.equal(stored, "a".repeat(251) + ".txt");
    assert.equal(up.filename, name);
    const file = await fetchRaw(server, member, up.url);
    assert.equal(file.status, 200);
    assert.equal(file.data.toString(), "hello");
    assert.ok((file.headers.get("content-disposition") ?? "").length < 1000);
  });

  test("multi-byte names are cut on a character boundary; NUL and empty names are stored safely", async () => {
    const { member } = server.fixtures;
    const wide = expectSuccess(await uploadFile(server, member, "é".repeat(3000) + ".pdf", "x"));
    const stored = decodeURIComponent(wide.url.split("/").pop());
    assert.equal(stored, "é".repeat(125) + ".pdf");
    assert.ok(Buffer.byteLength(stored) <= 255);
    const longExtension = expectSuccess(await uploadFile(server, member, "x." + "e".repeat(400), "x"));
    assert.equal(Buffer.byteLength(decodeURIComponent(longExtension.url.split("/").pop())), 255);
    const nul = expectSuccess(await uploadFile(server, member, "a\u0000b.txt", "x"));
    assert.equal(nul.filename, "ab.txt");
    assert.match(nul.url, /\/ab\.txt$/);
    for (const odd of ["..", "../../etc/passwd", "ﷺ".repeat(200)]) {
      const res = expectSuccess(await uploadFile(server, member, odd, "x"));
      const last = decodeURIComponent(res.url.split("/").pop());
      assert.ok(Buffer.byteLength(last) <= 255 && !last.includes("/") && last !== "..", last);
      assert.equal((await fetchRaw(server, member, res.url)).status, 200);
    }
  });

  test("a NUL character in any parameter is a 400 naming it; message content and topics keep Zulip's words", async () => {
    const { member } = server.fixtures;
    expectError(await server.api.post(member, "/users/me/status", { status_text: "a\u0000b" }), "BAD_REQUEST", "status_text contains NULL (0x00) characters.");
    expectError(await server.api.get(member, "/get_stream_id", { stream: "x\u0000" }), "BAD_REQUEST", "stream contains NULL (0x00) characters.");
    const nested = await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "ok" }, { name: "a\u0000" }] });
    expectError(nested, "BAD_REQUEST", 'subscriptions[1]["name"] contains NULL (0x00) characters.');
    // Deeper than a recursive walk survives, within the 200 KB body limit once URL-encoded.
    const narrow = `${"[".repeat(30_000)}"\\u0000"${"]".repeat(30_000)}`;
    const deep = await server.api.post(member, "/messages/flags/narrow", { narrow, anchor: "newest", num_before: 1, num_after: 0, op: "add", flag: "read" });
    expectError(deep, "BAD_REQUEST", "narrow contains NULL (0x00) characters.");
    expectSuccess(await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "nul" }] }));
    const message = { type: "stream", to: "nul", topic: "t", content: "a\u0000b" };
    expectError(await server.api.post(member, "/messages", message), "BAD_REQUEST", "Message must not contain null bytes");
    expectError(await server.api.post(member, "/messages", { ...message, content: "x", topic: "a\u0000" }), "BAD_REQUEST", "Invalid character in topic, at position 2!");
    for (const path of ["/api/v1/users/%00", "/api/v1/realm/emoji/a%00b", "/user_uploads/1/%00/x.txt"]) {
      expectError(await send(server, { method: "GET", path, auth: member }), "BAD_REQUEST", "Malformed URL: it contains a NULL (0x00) character");
    }
  });

  test("integers beyond the database's integer range are refused before any query", async () => {
    const { member } = server.fixtures;
    expectError(await server.api.get(member, "/streams/2147483648"), "BAD_REQUEST", "stream_id is too large");
    expectError(await server.api.get(member, "/messages/2147483648"), "BAD_REQUEST", "message_id is too large");
    expectError(await server.api.post(member, "/messages/flags", { messages: [1, 2147483648], op: "add", flag: "read" }), "BAD_REQUEST", "messages[1] is too large");
    expectError(await server.api.get(member, "/messages", { message_ids: [-2147483649] }), "BAD_REQUEST", "message_ids[0] is too small");
    const principals = await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "big" }], principals: [4294967296] });
    expectError(principals, "BAD_REQUEST", "principals[0] is too large");
  });

  test("none of the above logged an error or a warning", () => {
    const noisy = server.output().split("\n").filter((line) => /"level":(40|50|60)/.test(line));
    assert.deepEqual(noisy, []);
  });
});

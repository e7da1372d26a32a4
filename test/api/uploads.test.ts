/** POST /user_uploads, serving uploads to the users who may see them, temporary URLs. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { fetchRaw, postFiles, uploadFile } from "./uploads-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { sendMessage } from "../helpers/factories.ts";

const LIMIT = 1024 * 1024;

describeEachStore("uploads", { env: { MAX_UPLOAD_BYTES: String(LIMIT) } }, (server) => {
  let uploadsDir: string;
  before(async () => {
    uploadsDir = path.join(server.store.dataDir, "uploads", "files");
    const { owner, member, moderator } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true, principals: [owner.id, member.id] }));
  });

  const pathOf = (url: string) => decodeURIComponent(url.replace(/^\/user_uploads\//, ""));
  const onDisk = (pathId: string) => fs.existsSync(path.join(uploadsDir, ...pathId.split("/")));

  test("an upload is stored and its URL, uri and file name returned", async () => {
    const { member } = server.fixtures;
    const body = expectSuccess(await uploadFile(server, member, "notes (draft) 1.txt", "hello world", "text/plain"));
    assert.equal(body.uri, body.url);
    assert.equal(body.filename, "notes (draft) 1.txt");
    assert.match(body.url, new RegExp(`^/user_uploads/${server.fixtures.realmId}/[0-9a-f]{2}/[A-Za-z0-9_-]{24}/notes-draft-1\\.txt$`));
    const pathId = pathOf(body.url);
    assert.equal(fs.readFileSync(path.join(uploadsDir, ...pathId.split("/")), "utf8"), "hello world");
    const listed = expectSuccess(await server.api.get(member, "/attachments")).attachments.find((a: { path_id: string }) => a.path_id === pathId);
    assert.deepEqual({ ...listed, id: 0, create_time: 0 }, { id: 0, name: "notes (draft) 1.txt", path_id: pathId, size: 11, create_time: 0, messages: [] });
  });

  test("any field name carries the file; odd names are sanitized in the path only", async () => {
    const { member } = server.fixtures;
    const body = expectSuccess(await postFiles(server, member, "/user_uploads", [{ field: "file", name: "../../été?.png", data: "x" }]));
    // The multipart parser keeps only the base name; the path then drops "?".
    assert.equal(body.filename, "été?.png");
    assert.ok(pathOf(body.url).endsWith("/été.png"), body.url);
    assert.equal(body.ignored_parameters_unsupported, undefined);
  });

  test("refusals write neither rows nor files", async () => {
    const { member } = server.fixtures;
    const rows = await countRows(server, ["attachments"]);
    const files = fs.readdirSync(uploadsDir, { recursive: true }).length;
    expectError(await postFiles(server, member, "/user_uploads", []), "BAD_REQUEST", "You must specify a file to upload");
    expectError(await server.api.post(member, "/user_uploads", { filename: "not a file" }), "BAD_REQUEST", "You must specify a file to upload");
    const two = [{ name: "a.txt", data: "a" }, { name: "b.txt", data: "b" }];
    expectError(await postFiles(server, member, "/user_uploads", two), "BAD_REQUEST", "You may only upload one file at a time");
    expectError(await uploadFile(server, member, "big.bin", Buffer.alloc(LIMIT + 1)), "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 1 MiB");
    expectError(await uploadFile(server, null, "a.txt", "a"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await countRows(server, ["attachments"]), rows);
    assert.equal(fs.readdirSync(uploadsDir, { recursive: true }).length, files);
    expectSuccess(await uploadFile(server, member, "exact.bin", Buffer.alloc(LIMIT)));
  });

  test("the uploader reads the file with safe headers; HTML is never inline", async () => {
    const { member } = server.fixtures;
    const text = expectSuccess(await uploadFile(server, member, "a.txt", "plain", "text/plain"));
    const got = await fetchRaw(server, member, text.url);
    assert.equal(got.status, 200);
    assert.equal(got.data.toString(), "plain");
    assert.equal(got.headers.get("content-type"), "text/plain");
    assert.match(got.headers.get("content-disposition") ?? "", /^inline; filename="a.txt"/);
    assert.equal(got.headers.get("x-content-type-options"), "nosniff");
    const html = expectSuccess(await uploadFile(server, member, "page.html", "<script>alert(1)</script>", "text/html"));
    const page = await fetchRaw(server, member, html.url);
    assert.equal(page.headers.get("content-type"), "application/octet-stream");
    assert.match(page.headers.get("content-disposition") ?? "", /^attachment; filename="page.html"/);
    const svg = expectSuccess(await uploadFile(server, member, "i.svg", "<svg/>", "image/svg+xml"));
    assert.match((await fetchRaw(server, member, svg.url)).headers.get("content-disposition") ?? "", /^attachment;/);
    const png = expectSuccess(await uploadFile(server, member, "pic.png", "png", "application/octet-stream"));
    assert.equal((await fetchRaw(server, member, png.url)).headers.get("content-type"), "image/png");
  });

  test("serving needs credentials; unknown, traversing and other realms' paths are not found", async () => {
    const { member } = server.fixtures;
    const up = expectSuccess(await uploadFile(server, member, "s.txt", "secret"));
    const noAuth = await fetchRaw(server, null, up.url);
    assert.deepEqual([noAuth.status, (noAuth.json as { code: string }).code], [401, "UNAUTHORIZED"]);
    const realm = server.fixtures.realmId;
    for (const bad of [`/user_uploads/${realm}/ab/nothing/here.txt`, `/user_uploads/${realm}/..%2F..%2F..%2Fzuliprc`, `/user_uploads/999/${pathOf(up.url).split("/").slice(1).join("/")}`]) {
      const res = await fetchRaw(server, member, bad);
      assert.deepEqual([res.status, res.json], [404, { result: "error", msg: "File not found.", code: "BAD_REQUEST" }], bad);
    }
  });

  test("until linked, nobody else may read an upload", async () => {
    const { member, owner, guest } = server.fixtures;
    const up = expectSuccess(await uploadFile(server, member, "mine.txt", "mine"));
    for (const user of [owner, guest]) {
      const res = await fetchRaw(server, user, up.url);
      assert.deepEqual([res.status, res.json], [403, { result: "error", msg: "You are not authorized to view this file.", code: "BAD_REQUEST" }]);
    }
  });

  test("a public channel message's upload: non-guests may read it, an unsubscribed guest may not", async () => {
    const { member, moderator, admin, guest } = server.fixtures;
    const up = expectSuccess(await uploadFile(server, member, "pub.txt", "public"));
    await sendMessage(server, member, { type: "stream", to: "general", topic: "files", content: `[pub.txt](${up.url})` });
    assert.equal((await fetchRaw(server, moderator, up.url)).status, 200);
    assert.equal((await fetchRaw(server, admin, up.url)).status, 200);
    assert.equal((await fetchRaw(server, guest, up.url)).status, 403);
  });

  test("a private channel message's upload: subscribers only", async () => {
    const { member, owner, moderator } = server.fixtures;
    const up = expectSuccess(await uploadFile(server, member, "priv.txt", "private"));
    await sendMessage(server, member, { type: "stream", to: "secret", topic: "files", content: `[priv.txt](${up.url})` });
    assert.equal((await fetchRaw(server, owner, up.url)).status, 200);
    assert.equal((await fetchRaw(server, moderator, up.url)).status, 403);
  });

  test("a direct message's upload: its recipient, not an outsider", async () => {
    const { member, moderator, admin } = server.fixtures;
    const up = expectSuccess(await uploadFile(server, member, "dm.txt", "direct"));
    await sendMessage(server, member, { type: "direct", to: JSON.stringify([moderator.id]), content: `[dm.txt](${up.url})` });
    assert.equal((await fetchRaw(server, moderator, up.url)).data.toString(), "direct");
    assert.equal((await fetchRaw(server, admin, up.url)).status, 403);
  });

  test("temporary URLs work without credentials for 60 seconds", async () => {
    const { member, owner } = server.fixtures;
    const up = expectSuccess(await uploadFile(server, member, "temp file.txt", "temporary"));
    const apiPath = up.url.replace(/^\/user_uploads/, "/user_uploads");
    const body = expectSuccess(await server.api.get(member, apiPath));
    assert.match(body.url, /^\/user_uploads\/temporary\/[^/]+\/temp-file\.txt$/);
    assert.equal((await fetchRaw(server, null, body.url)).data.toString(), "temporary");
    expectError(await server.api.get(owner, apiPath), "BAD_REQUEST", "You are not authorized to view this file.", 403);
    expectError(await server.api.get(null, apiPath), "UNAUTHORIZED", NO_AUTH, 401);
    const forged = body.url.replace(/temporary\/(\d+)-(\d+)-/, (_m: string, r: string, a: string) => `temporary/${r}-${Number(a) + 1}-`);
    assert.equal((await fetchRaw(server, null, forged)).status, 404);
    await server.advanceClock(61);
    assert.equal((await fetchRaw(server, null, body.url)).status, 404);
  });

  test("the file lives under UPLOADS_DIR, not beside the database", async () => {
    assert.ok(fs.existsSync(uploadsDir));
    const some = expectSuccess(await uploadFile(server, server.fixtures.member, "where.txt", "here"));
    assert.ok(onDisk(pathOf(some.url)));
  });
});

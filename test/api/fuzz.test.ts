/**
 * Fuzz test (issue 11): every route of the app, called with wrong types, huge values, broken
 * encodings, missing and extra parameters, as a member, as an administrator (the routes only
 * they get into) and without credentials, answers within one second (fuzz-run.ts's SLOW_FACTOR says when a
 * busy machine stretches that) with a status below 500 and Zulip's envelope ({result, msg,
 * code} on errors; the file routes may answer bytes on success), and the server logs no error.
 * The case list is fixed (no randomness), so a failure reproduces; each is listed with its request.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { loadRoutes } from "../../src/http/app.ts";
import type { Endpoint } from "../../src/http/endpoint.ts";
import { basicAuth, expectSuccess } from "../helpers/client.ts";
import { uploadFile } from "./uploads-support.ts";
import { ADMIN_ROUTES, badAuthHeaders, endpointCases, RAW_ROUTES, rawRouteCases, SELF_DESTRUCTIVE, uploadCases, type Ids } from "./fuzz-cases.ts";
import { calibrate, CONCURRENCY, loggedErrors, report, runCases } from "./fuzz-run.ts";
import { describeEachStore } from "../helpers/suite.ts";



describeEachStore("fuzz: every route, hostile input", { env: { RATE_LIMITS: "off" } }, (server) => {
  let endpoints: Endpoint[];
  let ids: Ids;
  let member: Record<string, string>;

  before(async () => {
    endpoints = loadRoutes().endpoints;
    const m = server.fixtures.member;
    member = { authorization: basicAuth(m) };
    const api = server.api;
    expectSuccess(await api.post(m, "/users/me/subscriptions", { subscriptions: [{ name: "fuzz" }] }));
    const stream = expectSuccess(await api.get(m, "/get_stream_id", { stream: "fuzz" })).stream_id;
    const message = expectSuccess(await api.post(m, "/messages", { type: "stream", to: "fuzz", topic: "fuzz topic", content: "hello" })).id;
    const group = expectSuccess(await api.get(m, "/user_groups")).user_groups[0].id;
    const upload = expectSuccess(await uploadFile(server, m, "fuzz.txt", "hello")).url as string;
    const uploadPath = upload.replace(/^\/user_uploads\//, "");
    const temporary = expectSuccess(await api.get(m, `/user_uploads/${uploadPath}`)).url as string;
    const token = temporary.split("/")[3];
    const attachment = expectSuccess(await api.get(m, "/attachments")).attachments[0].id;
    const admin = server.fixtures.admin;
    const field = expectSuccess(await api.post(admin, "/realm/profile_fields", { name: "fuzz field", field_type: 1 })).id;
    const filter = expectSuccess(await api.post(admin, "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/{id}" })).id;
    const playground = expectSuccess(await api.post(admin, "/realm/playgrounds", { name: "fuzz", pygments_language: "Python", url_template: "https://example.com/?q={code}" })).id;
    ids = { member: m.id, bot: server.fixtures.bot.id, stream, message, group, realm: server.fixtures.realmId, attachment, field, filter, playground, uploadPath, token };
    await calibrate(server.url, m);
  });

  test("the raw routes listed here are every one the route files register", async () => {
    const registered: string[] = [];
    for (const register of loadRoutes().rawRoutes) {
      register({ get: (path: string) => registered.push(path) }, { store: server.store as never, config: {} as never, clock: {} as never }, "example.com");
    }
    assert.deepEqual(registered.sort(), [...RAW_ROUTES].sort());
  });

  test("as a member: wrong types, huge values, broken encodings, missing and extra parameters", { timeout: 600_000 }, async () => {
    const routes = endpoints.filter((e) => !e.path.startsWith("/__test") && !SELF_DESTRUCTIVE.has(`${e.method} ${e.path}`));
    // Routes open to anyone get the full fuzz without credentials (below); credentials change nothing there.
    const cases = [...routes.flatMap((e) => endpointCases(e, ids, member, e.auth !== "none")), ...uploadCases(member)];
    const failures = await runCases(server.url, cases, CONCURRENCY);
    assert.deepEqual(failures, [], report(failures, cases.length));
  });

  test("as an administrator: the routes only administrators get into", { timeout: 600_000 }, async () => {
    const byName = new Map(endpoints.map((e) => [`${e.method} ${e.path}`, e]));
    const routes = ADMIN_ROUTES.map((name) => byName.get(name));
    assert.ok(routes.every((e) => e !== undefined), "every listed administrator route exists");
    const admin = { authorization: basicAuth(server.fixtures.admin) };
    const victim = { ...ids, member: server.fixtures.guest.id };
    const cases = routes.flatMap((e) => (e ? endpointCases(e, victim, admin, true) : []));
    const failures = await runCases(server.url, cases, CONCURRENCY);
    assert.deepEqual(failures, [], report(failures, cases.length));
  });

  test("the file routes: real and mutated paths, with and without credentials", async () => {
    const cases = rawRouteCases(ids, member);
    const failures = await runCases(server.url, cases, CONCURRENCY);
    assert.deepEqual(failures, [], report(failures, cases.length));
  });

  test("without credentials or with bad ones; routes open to anyone get the full fuzz", { timeout: 600_000 }, async () => {
    const routes = endpoints.filter((e) => !e.path.startsWith("/__test"));
    const bad = badAuthHeaders(server.fixtures.member);
    const cases = routes.flatMap((e, i) => [
      ...endpointCases(e, ids, {}, e.auth !== "user"),
      ...endpointCases(e, ids, { authorization: bad[i % bad.length] }, false),
    ]);
    const failures = await runCases(server.url, cases, CONCURRENCY);
    assert.deepEqual(failures, [], report(failures, cases.length));
  });

  test("routes that take the member's access away, last and one at a time", { timeout: 120_000 }, async () => {
    const routes = endpoints.filter((e) => SELF_DESTRUCTIVE.has(`${e.method} ${e.path}`));
    assert.equal(routes.length, SELF_DESTRUCTIVE.size);
    const cases = routes.flatMap((e) => endpointCases(e, ids, member, true));
    const failures = await runCases(server.url, cases, 1);
    assert.deepEqual(failures, [], report(failures, cases.length));
  });

  test("the server logged no errors", () => {
    assert.deepEqual(loggedErrors(server.output()), []);
  });
});

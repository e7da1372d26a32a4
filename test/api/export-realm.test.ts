/**
 * Organization data exports: POST/GET /export/realm, DELETE /export/realm/{export_id} and GET
 * /export/realm/consents (administrators only), upstream's Python examples for them, the
 * background job (pending, then a URL; a restart finishes what was asked for and fails what was
 * left started), the file (a gzip tarball holding realm.json, downloadable by administrators
 * only), upstream's limits and errors, and the realm_export and realm_export_consent events
 * (checked against the OpenAPI schemas by the client). Only what holds for the real export is
 * checked, not the contents of the file.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";
import { getEvents, pollEvents, registerQueue, type Queue } from "../helpers/events.ts";
import { startServerOnStore } from "../helpers/server.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { fetchRaw, uploadFile } from "./uploads-support.ts";

type ApiExport = { id: number; acting_user_id: number; export_time: number; deleted_timestamp: number | null; failed_timestamp: number | null; export_url: string | null; pending: boolean; export_type: number };

/** The names of a tar archive's entries (ustar headers, 512-byte blocks). */
function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, to: number) => header.subarray(from, to).toString("latin1").replace(/\0.*$/s, "");
    const prefix = field(345, 500);
    names.push(prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const size = parseInt(field(124, 136).trim() || "0", 8);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

/** An upload of more bytes than the suite's EXPORT_MAX_UPLOAD_BYTES. */
const MAX_UPLOAD_BYTES = 4096;

describeEachStore("organization data exports", { env: { EXPORT_MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) } }, (server) => {
  const exportsOf = async (user: Credentials = server.fixtures.admin): Promise<ApiExport[]> => expectSuccess(await server.api.get(user, "/export/realm")).exports;

  /** Long-polls `queue` until a realm_export event whose exports satisfy `done`; returns that event's exports. */
  async function awaitExports(queue: Queue, done: (exports: ApiExport[]) => boolean): Promise<ApiExport[]> {
    for (;;) {
      const body = expectSuccess(await getEvents(server.api, queue.user, { queue_id: queue.queueId, last_event_id: queue.lastEventId }));
      for (const event of body.events as Array<{ id: number; type: string; exports?: ApiExport[] }>) {
        queue.lastEventId = event.id;
        if (event.type === "realm_export" && done(event.exports ?? [])) return event.exports ?? [];
      }
    }
  }
  const finished = (id: number) => (exports: ApiExport[]) => exports.some((e) => e.id === id && !e.pending);

  test("administrators only: everyone else is refused, and nothing is written", async () => {
    const { moderator, member, guest, bot } = server.fixtures;
    for (const who of [moderator, member, guest, bot]) {
      expectError(await server.api.post(who, "/export/realm"), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
      expectError(await server.api.get(who, "/export/realm"), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
      expectError(await server.api.delete(who, "/export/realm/1"), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
      expectError(await server.api.get(who, "/export/realm/consents"), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await server.api.post(null, "/export/realm"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, "/export/realm"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(server.fixtures.admin, "/export/realm", { export_type: 3 }), "BAD_REQUEST", "Invalid export_type: Not in the list of possible values");
    assert.deepEqual(await exportsOf(), []);
  });

  test("upstream's Python examples (call_endpoint: POST and GET /export/realm, GET /export/realm/consents) and the curl example's export_type=2", async () => {
    const { admin, owner } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["realm_export"] });
    const created = expectSuccess(await server.api.post(admin, "/export/realm"));
    assert.equal(typeof created.id, "number");
    const standard = expectSuccess(await server.api.post(owner, "/export/realm", { export_type: 2 })).id as number;
    const listed = await exportsOf();
    assert.deepEqual(listed.map((e) => [e.id, e.export_type, e.acting_user_id]), [[created.id, 1, admin.id], [standard, 2, owner.id]]);
    const consents = expectSuccess(await server.api.get(admin, "/export/realm/consents")).export_consents;
    assert.ok(consents.length >= 5);
    await awaitExports(queue, (exports) => [created.id, standard].every((id) => finished(id)(exports)));
  });

  test("an export: pending at once, then a URL; every human administrator hears each step; the asker gets the Notification Bot's note; the file is a gzip tarball with realm.json, for administrators only", async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    const [ownerQueue, adminQueue, moderatorQueue] = await Promise.all([owner, admin, moderator].map((u) => registerQueue(server.api, u, { event_types: ["realm_export", "message"] })));
    const before = Date.now() / 1000;
    const { id } = expectSuccess(await server.api.post(admin, "/export/realm", { export_type: 1 }));
    const ownerEvents = (await pollEvents(server.api, ownerQueue)).filter((e) => e.type === "realm_export") as Array<{ exports: ApiExport[] }>;
    const first = ownerEvents[0];
    const asked = first?.exports.find((e) => e.id === id);
    // The first event is sent as the export is recorded, before the job can run.
    assert.deepEqual({ ...asked, export_time: 0 }, { id, acting_user_id: admin.id, export_time: 0, deleted_timestamp: null, failed_timestamp: null, export_url: null, pending: true, export_type: 1 });
    // The server's test clock stands still from its start (it may have started well before).
    assert.ok(asked!.export_time > before - 3600 && asked!.export_time <= Date.now() / 1000 + 5, `export_time ${asked!.export_time}`);
    const done = (await awaitExports(adminQueue, finished(id))).find((e) => e.id === id)!;
    assert.equal(done.pending, false);
    assert.equal(done.failed_timestamp, null);
    assert.equal(done.deleted_timestamp, null);
    assert.match(done.export_url ?? "", new RegExp(`^${server.url}/user_uploads/exports/${server.fixtures.realmId}/[A-Za-z0-9]{32}/zulip-export-[a-z0-9]{8}\\.tar\\.gz$`));
    if (!ownerEvents.some((e) => finished(id)(e.exports))) await awaitExports(ownerQueue, finished(id));
    // The note may come with or after the event that finished the export: look in the messages.
    const recent = expectSuccess(await server.api.get(admin, "/messages", { anchor: "newest", num_before: 10, num_after: 0, apply_markdown: false })).messages as Array<{ content: string }>;
    const notes = recent.map((m) => m.content);
    assert.ok(notes.some((c) => c.includes("Your data export is complete.")), JSON.stringify(notes));
    assert.equal((await pollEvents(server.api, moderatorQueue)).filter((e) => e.type === "realm_export").length, 0);

    const path = new URL(done.export_url!).pathname;
    for (const who of [owner, admin]) {
      const file = await fetchRaw(server, who, path);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get("content-type"), "application/gzip");
      assert.equal(file.data.subarray(0, 2).toString("hex"), "1f8b");
      assert.ok(tarNames(gunzipSync(file.data)).some((name) => /^[^/]+\/realm\.json$/.test(name)));
    }
    for (const who of [moderator, member]) assert.equal((await fetchRaw(server, who, path)).status, 404);
    assert.equal((await fetchRaw(server, null, path)).status, 401);
    assert.equal((await fetchRaw(server, admin, path.replace(/zulip-export-[a-z0-9]{8}/, "zulip-export-aaaaaaaa"))).status, 404);
  });

  test("deleting: the file goes, the export is marked deleted, administrators hear; upstream's errors for the rest", async () => {
    const { owner, admin } = server.fixtures;
    const queue = await registerQueue(server.api, owner, { event_types: ["realm_export"] });
    const target = (await exportsOf()).find((e) => e.export_url !== null)!;
    expectSuccess(await server.api.delete(admin, `/export/realm/${target.id}`));
    const after = (await awaitExports(queue, (exports) => exports.some((e) => e.id === target.id && e.deleted_timestamp !== null))).find((e) => e.id === target.id)!;
    assert.deepEqual({ ...after, deleted_timestamp: 0 }, { ...target, deleted_timestamp: 0, export_url: null });
    assert.equal((await fetchRaw(server, admin, new URL(target.export_url!).pathname)).status, 404);
    expectError(await server.api.delete(admin, `/export/realm/${target.id}`), "BAD_REQUEST", "Export already deleted");
    expectError(await server.api.delete(admin, "/export/realm/999999"), "BAD_REQUEST", "Invalid data export ID");
    // An export another process is building, and one that failed.
    const [building, failed] = await withDb(server, async (db) => {
      const row = (status: number, extra: Record<string, unknown>) =>
        db.insertInto("realm_exports").values({ realm_id: server.fixtures.realmId, acting_user_id: admin.id, export_type: 1, status, requested_at_ms: Date.now(), ...extra }).returning("id").executeTakeFirstOrThrow();
      return [await row(2, { process_id: "elsewhere", lease_until_ms: Date.now() + 3_600_000 }), await row(4, { failed_at_ms: Date.now() })];
    });
    expectError(await server.api.delete(admin, `/export/realm/${building.id}`), "BAD_REQUEST", "Export still in progress");
    expectError(await server.api.delete(admin, `/export/realm/${failed.id}`), "BAD_REQUEST", "Export failed, nothing to delete");
    const listed = await exportsOf();
    assert.deepEqual(listed.find((e) => e.id === building.id)?.pending, true);
    assert.equal(typeof listed.find((e) => e.id === failed.id)?.failed_timestamp, "number");
    await withDb(server, (db) => db.deleteFrom("realm_exports").where("id", "in", [building.id, failed.id]).execute());
  });

  test("consents: each active human's allow_private_data_export; a change is the user's user_settings event and the administrators' realm_export_consent", async () => {
    const { owner, admin, moderator, member, bot } = server.fixtures;
    const consentOf = async (userId: number) => (expectSuccess(await server.api.get(admin, "/export/realm/consents")).export_consents as Array<{ user_id: number; consented: boolean }>).find((c) => c.user_id === userId);
    assert.deepEqual(await consentOf(member.id), { user_id: member.id, consented: false });
    assert.equal(await consentOf(bot.id), undefined);
    const queues = await Promise.all([owner, admin, moderator, member].map((u) => registerQueue(server.api, u, { event_types: ["realm_export_consent", "user_settings"] })));
    expectSuccess(await server.api.patch(member, "/settings", { allow_private_data_export: true }));
    const [ownerEvents, adminEvents, moderatorEvents, memberEvents] = await Promise.all(queues.map((q) => pollEvents(server.api, q)));
    for (const events of [ownerEvents, adminEvents]) assert.deepEqual(events.map(({ id: _id, ...e }) => e), [{ type: "realm_export_consent", user_id: member.id, consented: true }]);
    assert.deepEqual(moderatorEvents, []);
    assert.deepEqual(memberEvents.map(({ id: _id, ...e }) => e), [{ type: "user_settings", op: "update", property: "allow_private_data_export", value: true }]);
    assert.deepEqual(await consentOf(member.id), { user_id: member.id, consented: true });
    expectSuccess(await server.api.patch(member, "/settings", { allow_private_data_export: false }));
    assert.deepEqual(await consentOf(member.id), { user_id: member.id, consented: false });
  });

  test("a user created or reactivated: the administrators hear their consent (a bot's is nobody's concern)", async () => {
    const { owner, admin } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["realm_export_consent"] });
    const { user_id: userId } = expectSuccess(await server.api.post(owner, "/users", { email: "newcomer@example.com", password: "newcomer-password-1", full_name: "New Comer" }));
    expectSuccess(await server.api.post(owner, "/bots", { full_name: "Helper", short_name: "helper", bot_type: 1 }));
    expectSuccess(await server.api.delete(owner, `/users/${userId}`));
    expectSuccess(await server.api.post(owner, `/users/${userId}/reactivate`));
    assert.deepEqual((await pollEvents(server.api, queue)).map(({ id: _id, ...e }) => e), [
      { type: "realm_export_consent", user_id: userId, consented: false },
      { type: "realm_export_consent", user_id: userId, consented: false },
    ]);
  });

  test("upstream's limits: five exports a week, then 'Exceeded rate limit.' until a week has passed; an organization past the size bounds is sent to the operator", async () => {
    const { admin } = server.fixtures;
    let queue = await registerQueue(server.api, admin, { event_types: ["realm_export"] });
    let last = 0;
    while ((await exportsOf()).length < 5) last = expectSuccess(await server.api.post(admin, "/export/realm")).id;
    expectError(await server.api.post(admin, "/export/realm"), "BAD_REQUEST", "Exceeded rate limit.");
    await awaitExports(queue, (exports) => exports.every((e) => !e.pending) && exports.some((e) => e.id === last));
    await server.advanceClock(8 * 24 * 60 * 60);
    // The week idled the queue out.
    queue = await registerQueue(server.api, admin, { event_types: ["realm_export"] });
    const next = expectSuccess(await server.api.post(admin, "/export/realm")).id;
    await awaitExports(queue, finished(next));
    expectSuccess(await uploadFile(server, admin, "big.bin", Buffer.alloc(MAX_UPLOAD_BYTES + 1, 1)));
    expectError(await server.api.post(admin, "/export/realm"), "BAD_REQUEST", "Please request a manual export from owner@parley.local.");
  });

  test("a restart: an export asked for is built; one this process left started, or whose process's lease ran out, is marked failed (last: it restarts the server)", async () => {
    const { admin } = server.fixtures;
    const port = new URL(server.url).port;
    await server.stopProcess();
    const [asked, mine, orphan] = await withDb(server, async (db) => {
      const row = (status: number, extra: Record<string, unknown>) =>
        db.insertInto("realm_exports").values({ realm_id: server.fixtures.realmId, acting_user_id: admin.id, export_type: 2, status, requested_at_ms: Date.now(), ...extra }).returning("id").executeTakeFirstOrThrow();
      return [await row(1, {}), await row(2, { process_id: `port-${port}`, lease_until_ms: Date.now() + 3_600_000 }), await row(2, { process_id: "gone", lease_until_ms: Date.now() - 1 })];
    });
    server.replace(await startServerOnStore(server.store, server.fixtures, { EXPORT_MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES * 1000), PORT: port }));
    const queue = await registerQueue(server.api, admin, { event_types: ["realm_export"] });
    const settled = (exports: ApiExport[]) => [asked.id, mine.id, orphan.id].every((id) => finished(id)(exports));
    const exports = settled(await exportsOf()) ? await exportsOf() : await awaitExports(queue, settled);
    const byId = new Map(exports.map((e) => [e.id, e]));
    assert.equal(byId.get(asked.id)?.failed_timestamp, null);
    assert.match(byId.get(asked.id)?.export_url ?? "", /\.tar\.gz$/);
    for (const id of [mine.id, orphan.id]) {
      assert.equal(typeof byId.get(id)?.failed_timestamp, "number");
      assert.equal(byId.get(id)?.export_url, null);
      assert.equal(byId.get(id)?.pending, false);
    }
    const file = await fetchRaw(server, admin, new URL(byId.get(asked.id)!.export_url!).pathname);
    assert.equal(file.status, 200);
    assert.ok(tarNames(gunzipSync(file.data)).some((name) => name.endsWith("/realm.json")));
  });
});

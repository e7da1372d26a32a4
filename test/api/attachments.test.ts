/** GET /attachments, DELETE /attachments/{id}, attachment events and the unclaimed-upload sweep. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { countRows, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { uploadFile } from "./uploads-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const WEEK = 7 * 24 * 60 * 60;

describeEachStore("attachments", { env: { UNCLAIMED_UPLOAD_WEEKS: "2" } }, (server) => {
  type User = TestServer["fixtures"]["member"];
  const pathOf = (url: string) => decodeURIComponent(url.replace(/^\/user_uploads\//, ""));
  const onDisk = (pathId: string) => fs.existsSync(path.join(server.store.dataDir, "uploads", "files", ...pathId.split("/")));
  const attachments = async (user: User) => expectSuccess(await server.api.get(user, "/attachments"));
  const upload = async (user: User, name: string, data: string) => {
    const body = expectSuccess(await uploadFile(server, user, name, data));
    const pathId = pathOf(body.url);
    const row = (await attachments(user)).attachments.find((a: { path_id: string }) => a.path_id === pathId);
    return { id: row.id as number, pathId, url: body.url as string };
  };

  test("lists own uploads with their messages, and the realm's upload_space_used", async () => {
    const { admin, moderator } = server.fixtures;
    const before = (await attachments(moderator)).upload_space_used;
    const a = await upload(admin, "one.txt", "12345");
    const listed = await attachments(admin);
    assert.equal(listed.upload_space_used, before + 5);
    const row = listed.attachments.find((x: { id: number }) => x.id === a.id);
    assert.equal(row.name, "one.txt");
    assert.equal(row.size, 5);
    assert.ok(Math.abs(row.create_time - Date.now()) < 3600_000, "create_time is in milliseconds");
    assert.deepEqual(row.messages, []);
    assert.ok(!(await attachments(moderator)).attachments.some((x: { id: number }) => x.id === a.id));
    // Linked messages appear with date_sent in milliseconds.
    const { owner } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "files" }], principals: [owner.id, admin.id] }));
    const messageId = expectSuccess(await server.api.post(admin, "/messages", { type: "stream", to: "files", topic: "t", content: "see file" })).id;
    await withDb(server, (db) => db.insertInto("attachment_messages").values({ attachment_id: a.id, message_id: messageId }).execute());
    const linked = (await attachments(admin)).attachments.find((x: { id: number }) => x.id === a.id);
    assert.equal(linked.messages.length, 1);
    assert.equal(linked.messages[0].id, messageId);
    assert.ok(Math.abs(linked.messages[0].date_sent - Date.now()) < 3600_000);
  });

  test("GET /attachments needs credentials", async () => {
    expectError(await server.api.get(null, "/attachments"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("delete removes the row and the file", async () => {
    const { member } = server.fixtures;
    const a = await upload(member, "gone.txt", "bye");
    assert.ok(onDisk(a.pathId));
    expectSuccess(await server.api.delete(member, `/attachments/${a.id}`));
    assert.ok(!(await attachments(member)).attachments.some((x: { id: number }) => x.id === a.id));
    assert.ok(!onDisk(a.pathId));
    assert.equal((await fetch(`${server.url}${a.url}`, { headers: { authorization: "Basic " + Buffer.from(`${member.email}:${member.apiKey}`).toString("base64") } })).status, 404);
  });

  test("another user's, a missing and a malformed ID are refused; nothing is deleted", async () => {
    const { member, owner } = server.fixtures;
    const a = await upload(member, "kept.txt", "kept");
    const rows = await countRows(server, ["attachments"]);
    expectError(await server.api.delete(owner, `/attachments/${a.id}`), "BAD_REQUEST", "Invalid attachment");
    expectError(await server.api.delete(member, "/attachments/999999"), "BAD_REQUEST", "Invalid attachment");
    expectError(await server.api.delete(member, "/attachments/x"), "BAD_REQUEST", "attachment_id is not an integer");
    expectError(await server.api.delete(null, `/attachments/${a.id}`), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await countRows(server, ["attachments"]), rows);
    assert.ok(onDisk(a.pathId));
  });

  test("events: add on upload, remove on delete, only to the uploader", async () => {
    const { guest, owner } = server.fixtures;
    const mine = await registerQueue(server.api, guest, { event_types: ["attachment"] });
    const other = await registerQueue(server.api, owner, { event_types: ["attachment"] });
    const a = await upload(guest, "ev.txt", "event");
    const used = (await attachments(guest)).upload_space_used;
    const added = withoutIds(await pollEvents(server.api, mine));
    assert.equal(added.length, 1);
    const createTime = (added[0].attachment as { create_time: number }).create_time;
    assert.deepEqual(added, [{ type: "attachment", op: "add", attachment: { id: a.id, name: "ev.txt", path_id: a.pathId, size: 5, create_time: createTime, messages: [] }, upload_space_used: used }]);
    expectSuccess(await server.api.delete(guest, `/attachments/${a.id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, mine)), [{ type: "attachment", op: "remove", attachment: { id: a.id }, upload_space_used: used - 5 }]);
    assert.deepEqual(await pollEvents(server.api, other), []);
  });

  test("the sweep deletes unlinked uploads older than UNCLAIMED_UPLOAD_WEEKS, keeps linked ones and those a message still to be sent links", async () => {
    const { owner } = server.fixtures;
    const stale = await upload(owner, "stale.txt", "stale");
    const kept = await upload(owner, "linked.txt", "linked");
    const scheduled = await upload(owner, "later.txt", "later");
    const later = Math.floor(Date.now() / 1000) + 90 * 24 * 3600;
    expectSuccess(await server.api.post(owner, "/scheduled_messages", { type: "direct", to: JSON.stringify([owner.id]), content: `[later.txt](${scheduled.url})`, scheduled_delivery_timestamp: later }));
    const messageId = expectSuccess(await server.api.post(owner, "/messages", { type: "direct", to: JSON.stringify([owner.id]), content: "note" })).id;
    await withDb(server, (db) => db.insertInto("attachment_messages").values({ attachment_id: kept.id, message_id: messageId }).execute());
    await server.advanceClock(WEEK);
    assert.ok((await attachments(owner)).attachments.some((x: { id: number }) => x.id === stale.id), "not yet two weeks old");
    await server.advanceClock(WEEK + 2 * 3600);
    // The sweep runs asynchronously after the clock moved; it logs once rows and files are gone.
    const logged = () => server.output().includes(`"attachment_id":${stale.id},`);
    for (let i = 0; i < 500 && !logged(); i += 1) await attachments(owner);
    assert.match(server.output(), new RegExp(`"attachment_id":${stale.id},.*"msg":"deleted unclaimed upload"`));
    const ids = (await attachments(owner)).attachments.map((x: { id: number }) => x.id);
    assert.ok(!ids.includes(stale.id));
    assert.ok(ids.includes(kept.id));
    assert.ok(ids.includes(scheduled.id));
    assert.ok(!onDisk(stale.pathId));
    assert.ok(onDisk(kept.pathId));
    assert.ok(onDisk(scheduled.pathId));
  });
});

/** Saved snippets: create, list, edit, delete, their events and the register key. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("saved snippets", (server) => {
  const list = async (user: TestServer["fixtures"]["member"]) => expectSuccess(await server.api.get(user, "/saved_snippets")).saved_snippets;

  test("create trims, lists own snippets only, with date_created", async () => {
    const { member, admin } = server.fixtures;
    const body = expectSuccess(await server.api.post(member, "/saved_snippets", { title: "  Hello ", content: " Welcome **all**\n" }));
    assert.equal(typeof body.saved_snippet_id, "number");
    const mine = await list(member);
    assert.equal(mine.length, 1);
    assert.deepEqual({ ...mine[0], date_created: 0 }, { id: body.saved_snippet_id, title: "Hello", content: "Welcome **all**", date_created: 0 });
    assert.ok(Math.abs(mine[0].date_created - Date.now() / 1000) < 3600);
    assert.deepEqual(await list(admin), []);
  });

  test("guests and bots have their own snippets too", async () => {
    const { guest, bot } = server.fixtures;
    for (const user of [guest, bot]) {
      const id = expectSuccess(await server.api.post(user, "/saved_snippets", { title: "t", content: "c" })).saved_snippet_id;
      assert.deepEqual((await list(user)).map((s: { id: number }) => s.id), [id]);
    }
  });

  test("validation errors write nothing", async () => {
    const { member } = server.fixtures;
    const before = await countRows(server, ["saved_snippets"]);
    const post = (params: Record<string, unknown>) => server.api.post(member, "/saved_snippets", params);
    expectError(await post({ content: "c" }), "REQUEST_VARIABLE_MISSING", "Missing 'title' argument");
    expectError(await post({ title: "t" }), "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
    expectError(await post({ title: "   ", content: "c" }), "BAD_REQUEST", "title is too short.");
    expectError(await post({ title: "t", content: "" }), "BAD_REQUEST", "content is too short.");
    expectError(await post({ title: "x".repeat(61), content: "c" }), "BAD_REQUEST", "title is too long (limit: 60 characters)");
    expectError(await post({ title: "t", content: "x".repeat(10_001) }), "BAD_REQUEST", "content is too long (limit: 10000 characters)");
    assert.deepEqual(await countRows(server, ["saved_snippets"]), before);
  });

  test("edit changes only the given fields of an own snippet", async () => {
    const { member } = server.fixtures;
    const id = expectSuccess(await server.api.post(member, "/saved_snippets", { title: "Old", content: "old text" })).saved_snippet_id;
    expectSuccess(await server.api.patch(member, `/saved_snippets/${id}`, { title: " New " }, { validate: false }));
    expectSuccess(await server.api.patch(member, `/saved_snippets/${id}`, {}, { validate: false }));
    let row = (await list(member)).find((s: { id: number }) => s.id === id);
    assert.deepEqual([row.title, row.content], ["New", "old text"]);
    expectSuccess(await server.api.patch(member, `/saved_snippets/${id}`, { content: "new text" }, { validate: false }));
    row = (await list(member)).find((s: { id: number }) => s.id === id);
    assert.deepEqual([row.title, row.content], ["New", "new text"]);
    expectError(await server.api.patch(member, `/saved_snippets/${id}`, { title: "" }), "BAD_REQUEST", "title is too short.");
  });

  test("another user's snippet and a missing one are the same error; nothing changes", async () => {
    const { member, admin } = server.fixtures;
    const id = expectSuccess(await server.api.post(member, "/saved_snippets", { title: "Mine", content: "mine" })).saved_snippet_id;
    expectError(await server.api.patch(admin, `/saved_snippets/${id}`, { title: "Stolen" }), "BAD_REQUEST", "Saved snippet does not exist.", 404);
    expectError(await server.api.patch(member, "/saved_snippets/999999", { title: "x" }), "BAD_REQUEST", "Saved snippet does not exist.", 404);
    expectError(await server.api.delete(admin, `/saved_snippets/${id}`), "BAD_REQUEST", "Saved snippet does not exist.", 404);
    expectError(await server.api.delete(member, "/saved_snippets/999999"), "BAD_REQUEST", "Saved snippet does not exist.", 404);
    expectError(await server.api.delete(member, "/saved_snippets/abc"), "BAD_REQUEST", "saved_snippet_id is not an integer");
    const row = (await list(member)).find((s: { id: number }) => s.id === id);
    assert.equal(row.title, "Mine");
  });

  test("delete removes an own snippet", async () => {
    const { member } = server.fixtures;
    const id = expectSuccess(await server.api.post(member, "/saved_snippets", { title: "Gone", content: "soon" })).saved_snippet_id;
    expectSuccess(await server.api.delete(member, `/saved_snippets/${id}`));
    assert.ok(!(await list(member)).some((s: { id: number }) => s.id === id));
  });

  test("every endpoint needs credentials", async () => {
    expectError(await server.api.get(null, "/saved_snippets"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(null, "/saved_snippets", { title: "t", content: "c" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.patch(null, "/saved_snippets/1", { title: "t" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.delete(null, "/saved_snippets/1"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("register's saved_snippets holds the user's snippets", async () => {
    const { moderator } = server.fixtures;
    const id = expectSuccess(await server.api.post(moderator, "/saved_snippets", { title: "Reg", content: "in register" })).saved_snippet_id;
    const queue = await registerQueue(server.api, moderator, { fetch_event_types: ["saved_snippets"] });
    assert.deepEqual(
      (queue.state.saved_snippets as Array<Record<string, unknown>>).map((s) => [s.id, s.title, s.content]),
      [[id, "Reg", "in register"]],
    );
  });

  test("events: add, update, remove reach only the owner", async () => {
    const { owner, admin } = server.fixtures;
    const mine = await registerQueue(server.api, owner, { event_types: ["saved_snippets"] });
    const other = await registerQueue(server.api, admin, { event_types: ["saved_snippets"] });
    const id = expectSuccess(await server.api.post(owner, "/saved_snippets", { title: "Ev", content: "one" })).saved_snippet_id;
    const added = withoutIds(await pollEvents(server.api, mine));
    assert.equal(added.length, 1);
    const created = (added[0].saved_snippet as { date_created: number }).date_created;
    assert.deepEqual(added, [{ type: "saved_snippets", op: "add", saved_snippet: { id, title: "Ev", content: "one", date_created: created } }]);

    expectSuccess(await server.api.patch(owner, `/saved_snippets/${id}`, { content: "two" }, { validate: false }));
    // `update` (FL 368) is newer than the OpenAPI copy: compared exactly instead.
    const updated = await server.api.get(owner, "/events", { queue_id: mine.queueId, last_event_id: mine.lastEventId, dont_block: true }, { validate: false });
    const events = updated.body.events.filter((e: { type: string }) => e.type !== "heartbeat");
    mine.lastEventId = events[events.length - 1].id;
    assert.deepEqual(withoutIds(events), [{ type: "saved_snippets", op: "update", saved_snippet: { id, title: "Ev", content: "two", date_created: created } }]);

    expectSuccess(await server.api.delete(owner, `/saved_snippets/${id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, mine)), [{ type: "saved_snippets", op: "remove", saved_snippet_id: id }]);
    assert.deepEqual(await pollEvents(server.api, other), []);
  });
});

/** GET/POST /drafts, PATCH/DELETE /drafts/{id}; `drafts` events and the register key; enable_drafts_synchronization. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, setUserSettings } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { createUser } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const DISABLED = "User has disabled synchronizing drafts.";

type Draft = { type: string; to: number[]; topic: string; content: string; timestamp?: number | null };

describeEachStore("drafts", (server) => {
  let generalId: number;
  let secretId: number;
  let goneId: number;
  let goneEmail: string;
  const create = (user: Credentials | null, drafts: unknown) => server.api.post(user, "/drafts", { drafts });
  const list = async (user: Credentials) => expectSuccess(await server.api.get(user, "/drafts"));

  /** Asserts POST /drafts fails as given and writes no draft. */
  async function refused(drafts: unknown, msg: string, user: Credentials = server.fixtures.member) {
    const before = await countRows(server, ["drafts"]);
    expectError(await create(user, drafts), "BAD_REQUEST", msg);
    assert.deepEqual(await countRows(server, ["drafts"]), before);
  }

  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    secretId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "secret" })).stream_id;
    const gone = await createUser(server, { name: "Gone Person" });
    expectSuccess(await server.api.delete(owner, `/users/${gone.id}`));
    goneId = gone.id;
    goneEmail = expectSuccess(await server.api.get(member, `/users/${gone.id}`)).user.email;
  });

  test("create in bulk: ids in order; GET lists them by edit time, oldest first; the snapshot newest first", async () => {
    const { admin, moderator, guest } = server.fixtures;
    const drafts: Draft[] = [
      { type: "stream", to: [generalId], topic: "sync drafts", content: "Let's add drafts.", timestamp: 1595479021 },
      { type: "private", to: [guest.id], topic: "ignored", content: "What if?", timestamp: 1595479019 },
      { type: "private", to: [guest.id, moderator.id, admin.id, admin.id], topic: "", content: "Group", timestamp: 1595479020.75 },
      { type: "", to: [5], topic: "ignored", content: "  nowhere yet  \n", timestamp: 1595479022 },
    ];
    const ids: number[] = expectSuccess(await create(admin, drafts)).ids;
    assert.equal(ids.length, 4);
    assert.deepEqual([...ids].sort((a, b) => a - b), ids);
    const expected = [
      { id: ids[1], type: "private", to: [guest.id], topic: "", content: "What if?", timestamp: 1595479019 },
      { id: ids[2], type: "private", to: [moderator.id, guest.id], topic: "", content: "Group", timestamp: 1595479020 },
      { id: ids[0], type: "stream", to: [generalId], topic: "sync drafts", content: "Let's add drafts.", timestamp: 1595479021 },
      { id: ids[3], type: "", to: [], topic: "", content: "  nowhere yet", timestamp: 1595479022 },
    ];
    assert.deepEqual(await list(admin), { result: "success", msg: "", count: 4, drafts: expected });
    const queue = await registerQueue(server.api, admin, { fetch_event_types: ["drafts"] });
    assert.deepEqual(queue.state.drafts, [...expected].reverse());
    // Nobody else sees them.
    assert.deepEqual((await list(moderator)).drafts, []);
    for (const id of ids) expectSuccess(await server.api.delete(admin, `/drafts/${id}`));
  });

  test("a direct draft to oneself keeps oneself; no timestamp means now; an empty list creates nothing", async () => {
    const { moderator } = server.fixtures;
    const [id] = expectSuccess(await create(moderator, [{ type: "private", to: [moderator.id], topic: "", content: "note to self" }])).ids;
    const [draft] = (await list(moderator)).drafts;
    assert.equal(draft.id, id);
    assert.deepEqual(draft.to, [moderator.id]);
    assert.equal(typeof draft.timestamp, "number");
    assert.ok(Math.abs(draft.timestamp - Date.now() / 1000) < 600, "stamped with the server's time");
    assert.deepEqual(expectSuccess(await create(moderator, [])).ids, []);
    expectSuccess(await server.api.delete(moderator, `/drafts/${id}`));
  });

  test("drafts events: add, update, remove, only to the owner's queues", async () => {
    const { member, moderator } = server.fixtures;
    const mine = await registerQueue(server.api, member, { event_types: ["drafts"] });
    const theirs = await registerQueue(server.api, moderator, { event_types: ["drafts"] });
    const [id] = expectSuccess(await create(member, [{ type: "stream", to: [generalId], topic: "t", content: "first", timestamp: 1700000000 }])).ids;
    const draft = { id, type: "stream", to: [generalId], topic: "t", content: "first", timestamp: 1700000000 };
    assert.deepEqual(withoutIds(await pollEvents(server.api, mine)), [{ type: "drafts", op: "add", drafts: [draft] }]);

    const edited = { type: "private", to: [moderator.id], topic: "dropped", content: "second", timestamp: 1700000100 };
    expectSuccess(await server.api.patch(member, `/drafts/${id}`, { draft: edited }));
    const updated = { id, type: "private", to: [moderator.id], topic: "", content: "second", timestamp: 1700000100 };
    assert.deepEqual(withoutIds(await pollEvents(server.api, mine)), [{ type: "drafts", op: "update", draft: updated }]);
    assert.deepEqual((await list(member)).drafts, [updated]);

    expectSuccess(await server.api.delete(member, `/drafts/${id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, mine)), [{ type: "drafts", op: "remove", draft_id: id }]);
    assert.deepEqual((await list(member)).drafts, []);
    assert.deepEqual(await pollEvents(server.api, theirs), []);
  });

  test("validation errors (upstream's messages), each writing nothing", async () => {
    const ok = { type: "stream", to: [generalId], topic: "t", content: "x" };
    const bad: Array<[unknown, string]> = [
      ["not json", "drafts is not valid JSON"],
      [{ ...ok }, "drafts is not a list"],
      [[{ ...ok, type: "channel" }], 'Invalid drafts[0]["type"]'],
      [[{ ...ok, to: "1" }], 'drafts[0]["to"] is not a list'],
      [[{ ...ok, id: 5 }], 'Argument "id" at drafts[0] is unexpected'],
      [[ok, { ...ok, content: " \n " }], 'drafts[1]["content"] cannot be blank'],
      [[{ type: "", to: [], topic: "", content: "a\u0000b" }], "Message must not contain null bytes"],
      [[{ ...ok, topic: "bad \u0000" }], "Topic must not contain null bytes"],
      [[{ ...ok, to: [] }], "Must specify exactly 1 channel ID for channel messages"],
      [[{ ...ok, to: [generalId, generalId] }], "Must specify exactly 1 channel ID for channel messages"],
      [[{ ...ok, to: [secretId] }], "Invalid channel ID"],
      [[{ ...ok, to: [99999] }], "Invalid channel ID"],
      [[{ ...ok, type: "private", to: [99999] }], "Invalid user ID 99999"],
      [[{ ...ok, type: "private", to: [goneId] }], `'${goneEmail}' is no longer using Zulip.`],
      [[{ ...ok, timestamp: -10.1 }], "Timestamp must not be negative."],
      [[ok, { ...ok, timestamp: "soon" }], 'drafts[1]["timestamp"] is not an integer'],
    ];
    const before = await countRows(server, ["drafts"]);
    for (const [drafts, msg] of bad) expectError(await create(server.fixtures.member, drafts), "BAD_REQUEST", msg);
    assert.deepEqual(await countRows(server, ["drafts"]), before);
    expectError(await server.api.post(server.fixtures.member, "/drafts", {}), "REQUEST_VARIABLE_MISSING", "Missing 'drafts' argument");
  });

  test("long topics and contents are truncated as Zulip truncates them", async () => {
    const { member } = server.fixtures;
    const [id] = expectSuccess(await create(member, [{ type: "stream", to: [generalId], topic: "t".repeat(70), content: "c".repeat(10_010) }])).ids;
    const [draft] = (await list(member)).drafts;
    assert.equal(draft.topic, "t".repeat(57) + "...");
    assert.equal(draft.content, "c".repeat(10_000 - 20) + "\n[message truncated]");
    expectSuccess(await server.api.delete(member, `/drafts/${id}`));
  });

  test("another user's draft, or a missing one: 404 on edit and delete, nothing changed", async () => {
    const { member, moderator } = server.fixtures;
    const draft = { type: "", to: [], topic: "", content: "mine", timestamp: 1700000000 };
    const [id] = expectSuccess(await create(member, [draft])).ids;
    expectError(await server.api.patch(moderator, `/drafts/${id}`, { draft: { ...draft, content: "???" } }), "BAD_REQUEST", "Draft does not exist", 404);
    expectError(await server.api.delete(moderator, `/drafts/${id}`), "BAD_REQUEST", "Draft does not exist", 404);
    expectError(await server.api.patch(member, "/drafts/999999", { draft }), "BAD_REQUEST", "Draft does not exist", 404);
    expectError(await server.api.delete(member, "/drafts/999999"), "BAD_REQUEST", "Draft does not exist", 404);
    expectError(await server.api.patch(member, `/drafts/${id}`, { draft: { ...draft, to: [secretId], type: "stream" } }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.patch(member, `/drafts/${id}`, {}), "REQUEST_VARIABLE_MISSING", "Missing 'draft' argument");
    assert.deepEqual((await list(member)).drafts, [{ id, ...draft }]);
    expectSuccess(await server.api.delete(member, `/drafts/${id}`));
    expectError(await server.api.delete(member, `/drafts/${id}`), "BAD_REQUEST", "Draft does not exist", 404);
  });

  test("with enable_drafts_synchronization off every call is refused and the snapshot is empty", async () => {
    const { guest } = server.fixtures;
    const draft = { type: "", to: [], topic: "", content: "kept", timestamp: 1700000000 };
    const [id] = expectSuccess(await create(guest, [draft])).ids;
    await setUserSettings(server, guest.id, { enable_drafts_synchronization: false });
    expectError(await server.api.get(guest, "/drafts"), "BAD_REQUEST", DISABLED);
    await refused([draft], DISABLED, guest);
    expectError(await server.api.patch(guest, `/drafts/${id}`, { draft }), "BAD_REQUEST", DISABLED);
    expectError(await server.api.delete(guest, `/drafts/${id}`), "BAD_REQUEST", DISABLED);
    const queue = await registerQueue(server.api, guest, { fetch_event_types: ["drafts"] });
    assert.deepEqual(queue.state.drafts, []);
    await setUserSettings(server, guest.id, { enable_drafts_synchronization: true });
    assert.deepEqual((await list(guest)).drafts, [{ id, ...draft }]);
  });

  test("no credentials: 401", async () => {
    expectError(await server.api.get(null, "/drafts"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await create(null, []), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.patch(null, "/drafts/1", { draft: { type: "", to: [], topic: "", content: "x" } }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.delete(null, "/drafts/1"), "UNAUTHORIZED", NO_AUTH, 401);
  });
});

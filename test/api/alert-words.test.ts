/**
 * GET/POST/DELETE /users/me/alert_words, `alert_words` events and snapshot key, the
 * has_alert_word flag set on receipt (Zulip's matching rules) and the is:alerted narrow.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("alert words", (server) => {
  const words = async (user: Credentials) => expectSuccess(await server.api.get(user, "/users/me/alert_words")).alert_words as string[];
  const add = (user: Credentials | null, alertWords: unknown) => server.api.post(user, "/users/me/alert_words", { alert_words: alertWords });
  const remove = (user: Credentials | null, alertWords: unknown) => server.api.delete(user, "/users/me/alert_words", { alert_words: alertWords });
  const send = messageSender(server, { read_by_sender: true });
  const flags = async (user: Credentials, id: number): Promise<string[]> => expectSuccess(await server.api.get(user, `/messages/${id}`)).message.flags;

  before(async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    const principals = [owner.id, admin.id, moderator.id, member.id];
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
  });

  test("adding trims, drops empty words and ignores words already there in any case; removing is case-insensitive", async () => {
    const { guest } = server.fixtures;
    assert.deepEqual(await words(guest), []);
    const added = expectSuccess(await add(guest, ["  Apple ", "", "   ", "banana", "BANANA", "Cherry pie"]));
    assert.deepEqual(added, { result: "success", msg: "", alert_words: ["Apple", "BANANA", "Cherry pie"] });
    assert.deepEqual(expectSuccess(await add(guest, ["apple", "date"])).alert_words, ["Apple", "BANANA", "Cherry pie", "date"]);
    assert.deepEqual(await words(guest), ["Apple", "BANANA", "Cherry pie", "date"]);
    // Removal compares whole words case-insensitively, untrimmed; unknown words are ignored.
    assert.deepEqual(expectSuccess(await remove(guest, ["banana", "cherry PIE", " date", "nothing"])).alert_words, ["Apple", "date"]);
    assert.deepEqual(expectSuccess(await remove(guest, ["APPLE", "date"])).alert_words, []);
    assert.deepEqual(await words(guest), []);
  });

  test("validation errors (upstream's wording) write nothing; unauthenticated calls are refused", async () => {
    const { guest } = server.fixtures;
    expectSuccess(await add(guest, ["kept"]));
    const rows = await countRows(server, ["alert_words"]);
    expectError(await server.api.post(guest, "/users/me/alert_words", {}), "REQUEST_VARIABLE_MISSING", "Missing 'alert_words' argument");
    expectError(await server.api.delete(guest, "/users/me/alert_words", {}), "REQUEST_VARIABLE_MISSING", "Missing 'alert_words' argument");
    expectError(await add(guest, "kept"), "BAD_REQUEST", "alert_words is not valid JSON");
    expectError(await add(guest, { word: "x" }), "BAD_REQUEST", "alert_words is not a list");
    expectError(await add(guest, ["ok", 5]), "BAD_REQUEST", "alert_words[1] is not a string");
    expectError(await add(guest, ["x".repeat(101)]), "BAD_REQUEST", "alert_words[0] is too long (limit: 100 characters)");
    expectError(await remove(guest, [null]), "BAD_REQUEST", "alert_words[0] is not allowed to be null");
    expectError(await add(null, ["x"]), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, "/users/me/alert_words"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await remove(null, ["kept"]), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await countRows(server, ["alert_words"]), rows);
    // Exactly the limit is accepted (checked before trimming, as upstream).
    assert.deepEqual(expectSuccess(await add(guest, ["y".repeat(100)])).alert_words, ["kept", "y".repeat(100)]);
    expectSuccess(await remove(guest, ["kept", "y".repeat(100)]));
  });

  test("register: alert_words holds the caller's words; events carry the whole new list", async () => {
    const { admin, owner } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["alert_words"], fetch_event_types: ["alert_words"] });
    assert.deepEqual(queue.state.alert_words, []);
    const other = await registerQueue(server.api, owner, { event_types: ["alert_words"] });
    expectSuccess(await add(admin, ["one", "two"]));
    expectSuccess(await add(admin, ["ONE"]));
    expectSuccess(await remove(admin, ["two", "three"]));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "alert_words", alert_words: ["one", "two"] },
      { type: "alert_words", alert_words: ["one", "two"] },
      { type: "alert_words", alert_words: ["one"] },
    ]);
    assert.deepEqual(await pollEvents(server.api, other), [], "only the user's own queues");
    const again = await registerQueue(server.api, admin, { fetch_event_types: ["alert_words"] });
    assert.deepEqual(again.state.alert_words, ["one"]);
    expectSuccess(await remove(admin, ["one"]));
  });

  test("has_alert_word on receipt: whole words, any case, receivers only, never the sender", async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    expectSuccess(await add(member, ["pizza", "Lunch Time"]));
    expectSuccess(await add(owner, ["pizza"]));
    const cases: Array<[string, boolean]> = [
      ["Who wants PIZZA?", true],
      ["(pizza) for all", true],
      ["pizza", true],
      ["it is lunch time!", true],
      ["> pizza\nsoon", true],
      ["*pizza*", true],
      ["pizza\ttonight", true],
      ["pizzas tonight", false],
      ["xpizza", false],
      ['say "pizza"', false],
      ["pizza-party", false],
      ["lunch  time", false],
    ];
    const queue = await registerQueue(server.api, member, { event_types: ["message"] });
    for (const [content, alerted] of cases) {
      const id = await send(owner, { type: "stream", to: "lobby", topic: "food", content });
      assert.equal((await flags(member, id)).includes("has_alert_word"), alerted, content);
      assert.equal((await flags(moderator, id)).includes("has_alert_word"), false, "no words: no flag");
      assert.deepEqual(await flags(owner, id), ["read"], "the sender's own words do not alert them");
    }
    const events = await pollEvents(server.api, queue);
    assert.deepEqual(
      events.map((e) => (e.flags as string[]).includes("has_alert_word")),
      cases.map(([, alerted]) => alerted),
    );
    // A direct message too; a user who does not receive the message gets nothing.
    const direct = await send(admin, { type: "private", to: [member.id], content: "pizza?" });
    assert.deepEqual(await flags(member, direct), ["has_alert_word"]);
    const toOthers = await send(admin, { type: "private", to: [moderator.id], content: "pizza?" });
    expectError(await server.api.get(member, `/messages/${toOthers}`), "BAD_REQUEST", "Invalid message(s)");
    expectSuccess(await remove(owner, ["pizza"]));
  });

  test("editing the content recomputes has_alert_word", async () => {
    const { owner, member } = server.fixtures;
    const id = await send(owner, { type: "stream", to: "lobby", topic: "edits", content: "nothing yet" });
    assert.equal((await flags(member, id)).includes("has_alert_word"), false);
    expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: "now pizza" }));
    assert.equal((await flags(member, id)).includes("has_alert_word"), true, "gained by the edit");
    expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: "no food" }));
    assert.equal((await flags(member, id)).includes("has_alert_word"), false, "lost by the edit");
  });

  test("is:alerted narrows to the caller's alerted messages", async () => {
    const { owner, member, moderator } = server.fixtures;
    const hit = await send(owner, { type: "stream", to: "lobby", topic: "narrow", content: "pizza again" });
    const miss = await send(owner, { type: "stream", to: "lobby", topic: "narrow", content: "nothing here" });
    const narrow = [{ operator: "is", operand: "alerted" }];
    const found = async (user: Credentials, n: unknown[]) =>
      (expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: n })).messages as Array<{ id: number }>).map(
        (m) => m.id,
      );
    const ids = await found(member, narrow);
    assert.ok(ids.includes(hit));
    assert.ok(!ids.includes(miss));
    assert.ok(ids.every((id) => id <= hit));
    assert.deepEqual(await found(moderator, narrow), []);
    const negated = await found(member, [{ operator: "is", operand: "alerted", negated: true }, { operator: "topic", operand: "narrow" }]);
    assert.deepEqual(negated, [miss]);
    expectSuccess(await remove(member, ["pizza", "lunch time"]));
    // Removing the words keeps flags already set, as upstream.
    assert.ok((await found(member, narrow)).includes(hit));
  });
});

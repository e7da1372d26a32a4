/** POST /messages/flags/narrow: ranges of a narrow, counts, clamping rules and errors. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("POST /messages/flags/narrow", (server) => {
  const ids: number[] = [];
  const send = messageSender(server, { read_by_sender: true });
  const byNarrow = (user: Credentials | null, params: Record<string, unknown>) =>
    server.api.post(user, "/messages/flags/narrow", { anchor: "oldest", num_before: 0, num_after: 100, narrow: [], op: "add", flag: "read", ...params });

  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "feed" }], principals: [owner.id, member.id] }));
    for (const topic of ["a", "b", "a", "b"]) ids.push(await send(owner, { type: "stream", to: "feed", topic, content: `in ${topic}` }));
  });

  test("marks a topic read, then reports nothing left to update", async () => {
    const { member } = server.fixtures;
    const queue = await registerQueue(server.api, member, { event_types: ["update_message_flags"] });
    const narrow = [{ operator: "channel", operand: "feed" }, { operator: "topic", operand: "a" }];
    const body = expectSuccess(await byNarrow(member, { narrow }));
    assert.deepEqual(body, {
      result: "success",
      msg: "",
      processed_count: 2,
      updated_count: 2,
      first_processed_id: ids[0],
      last_processed_id: ids[2],
      found_oldest: true,
      found_newest: true,
    });
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [ids[0], ids[2]], all: false },
    ]);
    const again = expectSuccess(await byNarrow(member, { narrow }));
    assert.equal(again.processed_count, 2);
    assert.equal(again.updated_count, 0);
    // "newest" is an id past the newest message, so excluding it still takes the newest message.
    const tail = expectSuccess(await byNarrow(member, { anchor: "newest", num_before: 1, num_after: 0, include_anchor: false, flag: "starred" }));
    assert.deepEqual([tail.processed_count, tail.updated_count, tail.first_processed_id, tail.found_oldest, tail.found_newest], [1, 1, ids[3], false, true]);
    const starred = expectSuccess(await byNarrow(member, { narrow: [{ operator: "is", operand: "starred" }], op: "remove", flag: "starred" }));
    assert.deepEqual([starred.processed_count, starred.updated_count], [1, 1]);
    const empty = expectSuccess(await byNarrow(member, { narrow: [{ operator: "is", operand: "starred" }], flag: "starred" }));
    assert.deepEqual([empty.processed_count, empty.first_processed_id, empty.last_processed_id], [0, null, null]);
  });

  test("errors", async () => {
    const { member } = server.fixtures;
    expectError(await byNarrow(null, {}), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(member, "/messages/flags/narrow", { num_before: 0, num_after: 1, narrow: [], op: "add", flag: "read" }), "REQUEST_VARIABLE_MISSING", "Missing 'anchor' argument");
    expectError(await byNarrow(member, { anchor: "soon" }), "BAD_REQUEST", "Invalid anchor");
    expectError(await byNarrow(member, { num_before: -1 }), "BAD_REQUEST", "num_before is too small");
    expectError(await byNarrow(member, { anchor: ids[1], num_before: 1, num_after: 1, include_anchor: false }), "BAD_REQUEST", "The anchor can only be excluded at an end of the range");
    expectError(await byNarrow(member, { flag: "mentioned" }), "BAD_REQUEST", "Flag not editable: 'mentioned'");
    expectError(await byNarrow(member, { op: "flip" }), "BAD_REQUEST", "Invalid message flag operation: 'flip'");
    const flags = expectSuccess(await server.api.get(member, `/messages/${ids[1]}`)).message.flags;
    assert.deepEqual(flags, []);
  });
});

/**
 * The Redis event stream's backlog rules (events/redis-bus.ts): the order of stream ids, and when
 * a restarted process can read on from where it stopped. Pure: no Redis needed.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backlogReaches, compareStreamIds } from "../../src/events/redis-bus.ts";

describe("Redis event stream", () => {
  test("stream ids order by milliseconds, then sequence, as numbers", () => {
    assert.equal(compareStreamIds("10-0", "9-5"), 1);
    assert.equal(compareStreamIds("9-5", "10-0"), -1);
    assert.equal(compareStreamIds("1795657573658-2", "1795657573658-10"), -1);
    assert.equal(compareStreamIds("7-3", "7-3"), 0);
    assert.equal(compareStreamIds("0-0", "1-0"), -1);
  });

  test("a saved position is resumable while every later entry is still kept", () => {
    const info = { lastGenerated: "500-0", firstKept: "200-0", untrimmed: false };
    assert.equal(backlogReaches(info, "500-0"), true, "nothing published since");
    assert.equal(backlogReaches(info, "300-1"), true, "the oldest kept entry is older");
    assert.equal(backlogReaches(info, "200-0"), true);
    assert.equal(backlogReaches(info, "150-0"), false, "entries after it may have been trimmed");
    assert.equal(backlogReaches(info, "600-0"), false, "the stream is newer than it: Redis lost its data");
  });

  test("from the empty stream's position, only a stream never trimmed is resumable", () => {
    assert.equal(backlogReaches({ lastGenerated: "500-0", firstKept: "100-0", untrimmed: true }, "0-0"), true);
    assert.equal(backlogReaches({ lastGenerated: "500-0", firstKept: "300-0", untrimmed: false }, "0-0"), false);
    assert.equal(backlogReaches({ lastGenerated: "0-0", firstKept: null, untrimmed: true }, "0-0"), true, "still nothing published");
  });
});

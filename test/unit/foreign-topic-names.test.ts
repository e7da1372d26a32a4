/**
 * src/formats/foreign/topic-names.ts: the topic-naming rule the Slack and Mattermost imports
 * share: whitespace collapsed, cut at a word to 60 characters with "…", unique within a channel
 * without case (reserved names included), numbered within the limit.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChannelTopicNames, MAX_TOPIC_LENGTH, truncateTopic } from "../../src/formats/foreign/topic-names.ts";

const length = (s: string) => [...s].length;

test("short names are kept, whitespace collapsed", () => {
  assert.equal(truncateTopic("  release\n\tnotes  "), "release notes");
  assert.equal(truncateTopic("x".repeat(MAX_TOPIC_LENGTH)), "x".repeat(MAX_TOPIC_LENGTH));
});

test("long names are cut at a word's end with '…', within 60 characters", () => {
  const words = "The quidditch practice schedule for the whole coming season and the one after";
  const cut = truncateTopic(words);
  assert.equal(cut, "The quidditch practice schedule for the whole coming season…");
  assert.ok(length(cut) <= MAX_TOPIC_LENGTH);
  // No space in the second half: cut in the word.
  const unbroken = truncateTopic(`a ${"b".repeat(80)}`);
  assert.equal(length(unbroken), MAX_TOPIC_LENGTH);
  assert.ok(unbroken.endsWith("b…"));
  // Characters, not UTF-16 units: emoji and CJK count one each.
  const wide = truncateTopic("汉".repeat(70));
  assert.equal(length(wide), MAX_TOPIC_LENGTH);
  assert.equal(truncateTopic("deploy the thing", 10), "deploy…");
});

test("a channel's names are unique without case; reserved names count; numbers stay within the limit", () => {
  const names = new ChannelTopicNames(["imported from Somewhere"]);
  assert.equal(names.claim("Deploy", "thread"), "Deploy");
  assert.equal(names.claim("deploy", "thread"), "deploy (2)");
  assert.equal(names.claim("DEPLOY", "thread"), "DEPLOY (3)");
  assert.equal(names.claim("Imported from somewhere", "thread"), "Imported from somewhere (2)");
  assert.equal(names.claim("   ", "thread"), "thread");
  assert.equal(names.claim("", "thread"), "thread (2)");
  const long = "word ".repeat(30);
  const first = names.claim(long, "thread");
  const second = names.claim(long, "thread");
  assert.ok(first.endsWith("…") && length(first) <= MAX_TOPIC_LENGTH, first);
  assert.ok(second.endsWith("… (2)") && length(second) <= MAX_TOPIC_LENGTH, second);
  assert.equal(new ChannelTopicNames().claim("Deploy", "thread"), "Deploy", "another channel has its own names");
});

/**
 * A message event template carries its receivers' flags grouped into sets (events/kinds/messages.ts):
 * each queue's copy gets its user's flags, users in no set get none, and a template that crossed
 * the Redis bus as JSON gives the same copies. Templates an earlier release published (flags in
 * an object keyed by user id) still give each queue its flags.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { messageEventForQueue, messageEventTemplate, userFlagSets, type MessageEventTemplate } from "../../src/events/kinds/messages.ts";
import type { ApiMessage } from "../../src/present/messages.ts";

const message: ApiMessage = {
  id: 7, sender_id: 1, content: "<p>hi @<strong>Bo</strong></p>", recipient_id: 9, timestamp: 1_700_000_000,
  client: "test", subject: "lunch", topic_links: [], is_me_message: false, reactions: [], submessages: [],
  sender_full_name: "Ada", sender_email: "ada@example.com", sender_realm_str: "zulip", display_recipient: "Denmark",
  type: "stream", stream_id: 3, avatar_url: "https://secure.gravatar.com/avatar/x", content_type: "text/html",
};

const variants = { raw_content: "hi @**Bo**", gravatar_computable: false, empty_topic_display_name: "general chat", sender_queue_id: null, local_id: null };
const queueOptions = { apply_markdown: true, client_gravatar: false, capabilities: { empty_topic_name: true } };

/** Each user's flags in the copy a queue of theirs receives. */
function flagsOf(template: MessageEventTemplate, userIds: number[]): Record<number, readonly string[]> {
  return Object.fromEntries(userIds.map((userId) => [userId, messageEventForQueue(template, queueOptions, { id: `q${userId}`, userId }).flags]));
}

describe("message event flags", () => {
  test("receivers with the same flags share one set, in the order they came", () => {
    const sets = userFlagSets([[1, ["read"]], [2, []], [3, ["mentioned"]], [4, []], [5, []]]);
    assert.deepEqual(sets, [
      { flags: ["read"], user_ids: [1] },
      { flags: [], user_ids: [2, 4, 5] },
      { flags: ["mentioned"], user_ids: [3] },
    ]);
  });

  test("each queue's copy has its user's flags, also after the template crossed the bus as JSON", () => {
    const template = messageEventTemplate(message, { ...variants, user_flags: userFlagSets([[1, ["read"]], [2, ["mentioned"]], [3, []]]) });
    const expected = { 1: ["read"], 2: ["mentioned"], 3: [], 4: [] };
    assert.deepEqual(flagsOf(template, [1, 2, 3, 4]), expected, "user 4 (an all_public_streams queue) is in no set");
    const crossed = JSON.parse(JSON.stringify(template)) as MessageEventTemplate;
    assert.deepEqual(flagsOf(crossed, [1, 2, 3, 4]), expected);
  });

  test("a template an earlier release published, flags keyed by user id, gives the same flags", () => {
    const legacy = JSON.parse(JSON.stringify(messageEventTemplate(message, { ...variants, user_flags: { 1: ["read"], 2: ["mentioned"], 3: [] } }))) as MessageEventTemplate;
    assert.deepEqual(flagsOf(legacy, [1, 2, 3, 4]), { 1: ["read"], 2: ["mentioned"], 3: [], 4: [] });
  });
});

/**
 * The web app's narrows, pure parts: Zulip's search syntax to narrow terms (names resolved to
 * ids), URL hashes both ways, the API terms, and the `n` key's next unread topic with muted
 * topics left out of it and of the unread counts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Message, Subscription, User } from "../../web/src/api/types.ts";
import { apiTerms, matches, narrowHash, parseHash, simplify } from "../../web/src/state/narrow.ts";
import { narrowFromSearch, parseSearch, searchText } from "../../web/src/state/search.ts";
import { channels, me, subscriptions, users } from "../../web/src/state/store.ts";
import { applyUserTopic, VISIBILITY } from "../../web/src/state/muting.ts";
import { loadUnreads, nextUnreadTopic, unreadCounts } from "../../web/src/state/unread.ts";

const sub = (stream_id: number, name: string): Subscription => ({ stream_id, name, description: "", color: "#ccc", invite_only: false, is_muted: false, pin_to_top: false, is_archived: false });
const user = (user_id: number, full_name: string, email: string): User => ({ user_id, full_name, email, is_bot: false });

subscriptions.value = new Map([[12, sub(12, "general")], [13, sub(13, "design team")]]);
// Every channel the user can see (the snapshot's streams): the subscribed ones among them.
channels.value = subscriptions.value;
users.value = new Map([[3, user(3, "Ann Lee", "ann@example.com")], [7, user(7, "Bo Diaz", "bo@example.com")], [9, user(9, "Me Self", "me@example.com")]]);
me.value = { user_id: 9, email: "me@example.com", full_name: "Me Self" };

describe("web search syntax", () => {
  test("operators, aliases, quotes, negation and free words", () => {
    assert.deepEqual(parseSearch('stream:general topic:"lunch plans" -is:starred has:link hello world'), [
      { operator: "channel", operand: "12", negated: false },
      { operator: "topic", operand: "lunch plans", negated: false },
      { operator: "is", operand: "starred", negated: true },
      { operator: "has", operand: "link", negated: false },
      { operator: "search", operand: "hello world", negated: false },
    ]);
    assert.deepEqual(parseSearch("sender:me from:ann@example.com dm:bo@example.com,Ann Lee"), [
      { operator: "sender", operand: "9", negated: false },
      { operator: "sender", operand: "3", negated: false },
      { operator: "dm", operand: "bo@example.com,Ann", negated: false },
      { operator: "search", operand: "Lee", negated: false },
    ]);
    assert.deepEqual(parseSearch('dm:"bo@example.com,Ann Lee" channel:nowhere re:subject'), [
      { operator: "dm", operand: "3,7", negated: false },
      { operator: "channel", operand: "nowhere", negated: false },
      { operator: "search", operand: "re:subject", negated: false },
    ]);
  });

  test("a search naming one view is that view", () => {
    assert.deepEqual(narrowFromSearch("channel:general"), { kind: "channel", streamId: 12 });
    assert.deepEqual(narrowFromSearch('channel:"design team" topic:x'), { kind: "topic", streamId: 13, topic: "x" });
    assert.deepEqual(narrowFromSearch("dm:bo@example.com"), { kind: "dm", userIds: [7] });
    assert.deepEqual(narrowFromSearch("is:mentioned"), { kind: "mentions" });
    assert.deepEqual(narrowFromSearch("  "), { kind: "feed" });
    assert.equal(narrowFromSearch("topic:x").kind, "search");
    assert.equal(searchText(narrowFromSearch('channel:"design team" topic:x')), 'channel:"design team" topic:x');
    assert.equal(searchText(narrowFromSearch("sender:me -has:image cats")), "sender:me@example.com -has:image cats");
  });
});

describe("web narrow hashes", () => {
  test("round trips, Zulip's slugs and aliases", () => {
    for (const text of ["channel:general topic:a.b%c", "sender:ann@example.com has:link", "-topic:x dm:bo@example.com,ann@example.com", "is:starred"]) {
      const narrow = narrowFromSearch(text);
      assert.deepEqual(parseHash(narrowHash(narrow, (id) => subscriptions.value.get(id)?.name ?? "")), narrow, text);
    }
    assert.deepEqual(parseHash("#narrow/stream/12-general/subject/lunch"), { kind: "topic", streamId: 12, topic: "lunch" });
    assert.deepEqual(parseHash("#narrow/channel/12-general/topic/lunch/near/99"), { kind: "topic", streamId: 12, topic: "lunch" });
    assert.deepEqual(parseHash("#narrow/pm-with/3,7-group"), { kind: "dm", userIds: [3, 7] });
    assert.deepEqual(parseHash("#narrow/search/two.20words"), { kind: "search", terms: [{ operator: "search", operand: "two words", negated: false }] });
    assert.deepEqual(parseHash("#settings"), { kind: "feed" });
  });

  test("upstream's links to a direct message list the user too: the narrow lists the others", () => {
    assert.deepEqual(parseHash("#narrow/dm/3,9-dm/near/42", 9), { kind: "dm", userIds: [3] });
    assert.deepEqual(parseHash("#narrow/dm/3,7,9-group/near/42", 9), { kind: "dm", userIds: [3, 7] });
    assert.deepEqual(parseHash("#narrow/dm/9-dm/near/42", 9), { kind: "dm", userIds: [9] }, "a note to self");
  });

  test("API terms carry ids as numbers and the negation", () => {
    assert.deepEqual(apiTerms(simplify(parseSearch("channel:general -sender:me dm-including:3 words"))), [
      { operator: "channel", operand: 12 },
      { operator: "sender", operand: 9, negated: true },
      { operator: "dm-including", operand: 3 },
      { operator: "search", operand: "words" },
    ]);
    assert.deepEqual(apiTerms({ kind: "search", terms: [{ operator: "dm", operand: "3,7", negated: false }] }), [{ operator: "dm", operand: [3, 7] }]);
    assert.deepEqual(apiTerms({ kind: "feed" }), [{ operator: "in", operand: "home" }], "the combined feed leaves muted channels and topics out");
  });
});

describe("live messages in a search", () => {
  const message: Message = {
    id: 1, sender_id: 9, sender_full_name: "Me Self", sender_email: "me@example.com", content: "<p>hi</p>", timestamp: 0, subject: "Lunch",
    type: "stream", stream_id: 12, display_recipient: "general", avatar_url: null, is_me_message: false, reactions: [], flags: ["read", "starred"],
  };
  test("join a search whose every term the app can decide", () => {
    assert.equal(matches(narrowFromSearch("topic:lunch sender:me is:starred"), message, 9), true);
    assert.equal(matches(narrowFromSearch("channel:general -topic:lunch"), message, 9), false);
    assert.equal(matches(narrowFromSearch("topic:lunch -is:dm"), message, 9), true);
  });
  test("stay out of a search with words or has: (only the server can tell)", () => {
    assert.equal(matches(narrowFromSearch("topic:lunch hi"), message, 9), false);
    assert.equal(matches(narrowFromSearch("topic:lunch -has:link"), message, 9), false);
  });
});

describe("the next unread topic", () => {
  test("goes through channels in sidebar order, oldest unread topic first, wrapping around", () => {
    loadUnreads(
      {
        pms: [],
        huddles: [],
        mentions: [],
        count: 4,
        old_unreads_missing: false,
        streams: [
          { stream_id: 13, topic: "b", unread_message_ids: [5] },
          { stream_id: 12, topic: "late", unread_message_ids: [9] },
          { stream_id: 12, topic: "early", unread_message_ids: [2, 10] },
        ],
      },
      9,
    );
    const order = [12, 13];
    assert.deepEqual(nextUnreadTopic(null, order), { streamId: 12, topic: "early" });
    assert.deepEqual(nextUnreadTopic({ streamId: 12, topic: "early" }, order), { streamId: 12, topic: "late" });
    assert.deepEqual(nextUnreadTopic({ streamId: 12, topic: "late" }, order), { streamId: 13, topic: "b" });
    assert.deepEqual(nextUnreadTopic({ streamId: 13, topic: "b" }, order), { streamId: 12, topic: "early" });
    assert.deepEqual(nextUnreadTopic({ streamId: 13, topic: "\u0000" }, order), { streamId: 13, topic: "b" });
    assert.deepEqual(nextUnreadTopic(null, [13]), { streamId: 13, topic: "b" }, "muted channels are left out");
  });

  test("muted topics are skipped, and count only in their own topic's count", () => {
    applyUserTopic({ stream_id: 12, topic_name: "Early", visibility_policy: VISIBILITY.muted });
    try {
      assert.deepEqual(nextUnreadTopic(null, [12, 13]), { streamId: 12, topic: "late" });
      const counts = unreadCounts.value;
      assert.equal(counts.total, 2);
      assert.equal(counts.streams.get(12), 1);
      assert.equal(counts.topics.get("12\nearly"), 2);
    } finally {
      applyUserTopic({ stream_id: 12, topic_name: "early", visibility_policy: VISIBILITY.inherit });
    }
    assert.equal(unreadCounts.value.total, 4);
  });
});

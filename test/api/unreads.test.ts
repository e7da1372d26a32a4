/**
 * The register snapshot's message data: unread_msgs (exact for users who subscribed later),
 * starred_messages, recent_private_conversations, max_message_id, user_topics and muted_topics.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { registerQueue } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { messageSender } from "../helpers/factories.ts";

describeEachStore("register: unread_msgs and message state", (server) => {
  let streamId: number;
  const send = messageSender(server, { read_by_sender: true });
  const snapshot = async (user: Credentials, types: string[]): Promise<Record<string, any>> => (await registerQueue(server.api, user, { fetch_event_types: types })).state;

  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "town" }], principals: [owner.id, member.id] }));
    streamId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "town" })).stream_id;
  });

  test("unread counts are exact for a user who subscribes later, with mentions, muting and direct messages", async () => {
    const { owner, member, moderator, admin } = server.fixtures;
    const early = await send(owner, { type: "stream", to: "town", topic: "Square", content: "before you came" });
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "town" }], principals: [moderator.id] }));
    const later = await send(owner, { type: "stream", to: "town", topic: "Square", content: "after @**Mona Moderator**" });
    const muted = await send(owner, { type: "stream", to: "town", topic: "noise", content: "@**all** muted wildcard" });
    const dm = await send(owner, { type: "private", to: [moderator.id], content: "hi" });
    const group = await send(admin, { type: "private", to: [moderator.id, member.id], content: "group" });
    expectSuccess(await server.api.post(moderator, "/user_topics", { stream_id: streamId, topic: "noise", visibility_policy: 1 }));

    const state = await snapshot(moderator, ["message", "update_message_flags"]);
    const huddleKey = [admin.id, member.id, moderator.id].sort((a, b) => a - b).join(",");
    assert.deepEqual(state.unread_msgs, {
      pms: [{ other_user_id: owner.id, sender_id: owner.id, unread_message_ids: [dm] }],
      streams: [
        { stream_id: streamId, topic: "Square", unread_message_ids: [later] },
        { stream_id: streamId, topic: "noise", unread_message_ids: [muted] },
      ],
      huddles: [{ user_ids_string: huddleKey, unread_message_ids: [group] }],
      mentions: [later],
      count: 3,
      old_unreads_missing: false,
    });
    assert.equal(state.max_message_id, group);

    // The member received everything in the channel; reading one message removes it.
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [early], op: "add", flag: "read" }));
    const memberState = await snapshot(member, ["message", "update_message_flags"]);
    assert.deepEqual(memberState.unread_msgs.streams, [
      { stream_id: streamId, topic: "Square", unread_message_ids: [later] },
      { stream_id: streamId, topic: "noise", unread_message_ids: [muted] },
    ]);
    assert.deepEqual(memberState.unread_msgs.mentions, [muted]);
    assert.equal(memberState.unread_msgs.count, 3);

    // After unsubscribing, the channel's messages drop out of unread_msgs.
    expectSuccess(await server.api.delete(moderator, "/users/me/subscriptions", { subscriptions: ["town"] }));
    const gone = await snapshot(moderator, ["message", "update_message_flags"]);
    assert.deepEqual(gone.unread_msgs.streams, []);
    assert.equal(gone.unread_msgs.count, 2);
  });

  test("starred messages, recent direct conversations, user_topics and muted_topics", async () => {
    const { owner, guest, admin } = server.fixtures;
    const first = await send(guest, { type: "private", to: [owner.id], content: "one" });
    const self = await send(guest, { type: "private", to: [guest.id], content: "note to self" });
    const group = await send(admin, { type: "private", to: [guest.id, owner.id], content: "three of us" });
    expectSuccess(await server.api.post(guest, "/messages/flags", { messages: [self, first], op: "add", flag: "starred" }));
    const state = await snapshot(guest, ["starred_messages", "recent_private_conversations", "message"]);
    assert.deepEqual(state.starred_messages, [first, self]);
    assert.deepEqual(state.recent_private_conversations, [
      { max_message_id: group, user_ids: [owner.id, admin.id].sort((a, b) => a - b) },
      { max_message_id: self, user_ids: [] },
      { max_message_id: first, user_ids: [owner.id] },
    ]);
    assert.equal(state.max_message_id, group);

    expectSuccess(await server.api.post(owner, "/user_topics", { stream_id: streamId, topic: "Quiet", visibility_policy: 1 }));
    expectSuccess(await server.api.post(owner, "/user_topics", { stream_id: streamId, topic: "Loud", visibility_policy: 3 }));
    const topics = await snapshot(owner, ["user_topic", "muted_topics"]);
    assert.equal(topics.muted_topics, undefined, "muted_topics is left out when user_topic is asked for");
    // Sending follows topics automatically by default (the owner sent to Square and noise).
    const policies = (topics.user_topics as Array<Record<string, unknown>>).map(({ last_updated: _t, ...rest }) => rest).filter((t) => t.visibility_policy === 1 || t.topic_name === "Loud");
    assert.deepEqual(policies, [
      { stream_id: streamId, topic_name: "Quiet", visibility_policy: 1 },
      { stream_id: streamId, topic_name: "Loud", visibility_policy: 3 },
    ]);
    const legacy = await snapshot(owner, ["muted_topics"]);
    assert.deepEqual((legacy.muted_topics as unknown[][]).map((t) => t.slice(0, 2)), [["town", "Quiet"]]);
  });

  test("max_message_id finds a quiet channel's message below many newer ones of channels the user is not in", async () => {
    const { owner, guest } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "quiet" }], principals: [owner.id, guest.id] }));
    const quiet = await send(owner, { type: "stream", to: "quiet", topic: "rarely", content: "the one message" });
    // More than the realm's newest messages the snapshot looks through first (store/lookups/unreads.ts).
    for (let i = 0; i < 70; i++) await send(owner, { type: "stream", to: "town", topic: "busy", content: `busy ${i}` });
    assert.equal((await snapshot(guest, ["message"])).max_message_id, quiet);
    const newest = await send(owner, { type: "stream", to: "quiet", topic: "rarely", content: "another" });
    assert.equal((await snapshot(guest, ["message"])).max_message_id, newest);
  });

  test("a user with no messages", async () => {
    const state = await snapshot(server.fixtures.bot, ["message", "update_message_flags", "starred_messages", "recent_private_conversations"]);
    assert.equal(state.max_message_id, -1);
    assert.deepEqual(state.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
    assert.deepEqual(state.starred_messages, []);
    assert.deepEqual(state.recent_private_conversations, []);
  });
});

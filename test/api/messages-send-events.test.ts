/**
 * POST /messages: the `message` event per queue (flags of each user, apply_markdown,
 * client_gravatar, local ids, empty topic name, narrows, all_public_streams), `user_topic` events
 * and automatic_new_visibility_policy, and per-recipient flags including later subscribers.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { flagsFor } from "../../src/store/messages/message-flags.ts";
import { expectSuccess } from "../helpers/client.ts";
import { setUserSettings, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { sendMessage } from "../helpers/factories.ts";

type Event = Record<string, unknown>;

describeEachStore("POST /messages events and flags", (server) => {
  let generalId: number;
  const messageEvents = async (queue: Queue): Promise<Event[]> => (await pollEvents(server.api, queue)).filter((e) => e.type === "message");
  const flagsOf = (userId: number, messageId: number) =>
    withDb(server, async (db) => {
      const row = await db.selectFrom("messages").selectAll().where("id", "=", messageId).executeTakeFirstOrThrow();
      return (await flagsFor(db, userId, [row])).get(messageId);
    });

  before(async () => {
    const { owner, member, moderator, admin } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(await server.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], invite_only: true, principals: [member.id, moderator.id] }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    // Keep automatic follows out of the way except where a test turns them on.
    for (const user of [owner, member, moderator, admin]) await setUserSettings(server, user.id, { automatically_follow_topics_policy: 4, automatically_unmute_topics_in_muted_streams_policy: 4, automatically_follow_topics_where_mentioned: false });
  });

  test("each recipient's queue gets the message with that user's flags; others get nothing", async () => {
    const { owner, member, moderator, admin } = server.fixtures;
    const queues = await Promise.all([owner, member, moderator, admin].map((u) => registerQueue(server.api, u, { apply_markdown: true, client_gravatar: false })));
    const id = await sendMessage(server, owner, { type: "stream", to: "general", topic: "hello", content: "hi @**Max Member**" });
    const [ownerEvents, memberEvents, moderatorEvents, adminEvents] = await Promise.all(queues.map(messageEvents));
    assert.equal(adminEvents.length, 0, "not subscribed: no event");
    const message = memberEvents[0].message as Record<string, unknown>;
    assert.deepEqual(withoutIds(memberEvents), [
      {
        type: "message",
        flags: ["mentioned"],
        message: {
          id,
          sender_id: owner.id,
          content: `<p>hi <span class="user-mention" data-user-id="${member.id}">@Max Member</span></p>`,
          recipient_id: message.recipient_id,
          timestamp: message.timestamp,
          client: "node",
          subject: "hello",
          topic_links: [],
          is_me_message: false,
          reactions: [],
          submessages: [],
          sender_full_name: owner.fullName,
          sender_email: owner.email,
          sender_realm_str: "",
          display_recipient: "general",
          type: "stream",
          stream_id: generalId,
          avatar_url: message.avatar_url,
          content_type: "text/html",
        },
      },
    ]);
    assert.match(String(message.avatar_url), /^https:\/\/secure\.gravatar\.com\/avatar\//);
    assert.deepEqual(ownerEvents[0].flags, [], "an API client's message starts unread for its sender");
    assert.deepEqual(moderatorEvents[0].flags, []);
  });

  test("apply_markdown=false gives raw Markdown; client_gravatar nulls a public gravatar", async () => {
    const { owner, member } = server.fixtures;
    const queue = await registerQueue(server.api, member, { apply_markdown: false, client_gravatar: true });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "raw", content: "**bold**" });
    const [event] = await messageEvents(queue);
    const message = event.message as Record<string, unknown>;
    assert.equal(message.content, "**bold**");
    assert.equal(message.content_type, "text/x-markdown");
    assert.equal(message.avatar_url, null);
  });

  test("local_message_id reaches only the sending queue", async () => {
    const { owner, member } = server.fixtures;
    const mine = await registerQueue(server.api, owner);
    const other = await registerQueue(server.api, owner);
    const theirs = await registerQueue(server.api, member);
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "echo", content: "x", queue_id: mine.queueId, local_id: "local-7" });
    const res = await server.api.get(owner, "/events", { queue_id: mine.queueId, last_event_id: mine.lastEventId, dont_block: true });
    const [event] = (res.body.events as Event[]).filter((e) => e.type === "message");
    assert.equal(event.local_message_id, "local-7");
    assert.equal((await messageEvents(other))[0].local_message_id, undefined);
    assert.equal((await messageEvents(theirs))[0].local_message_id, undefined);
  });

  test("the empty topic: \"\" for empty_topic_name clients, the display name for others", async () => {
    const { owner, member } = server.fixtures;
    // Every capability is spelled out: POST /register currently requires all keys (see the report).
    const capabilities = { notification_settings_null: false, bulk_message_deletion: false, user_avatar_url_field_optional: false, stream_typing_notifications: false, user_settings_object: false, linkifier_url_template: false, user_list_incomplete: false, include_deactivated_groups: false, archived_channels: false, simplified_presence_events: false };
    const modern = await registerQueue(server.api, member, { client_capabilities: { ...capabilities, empty_topic_name: true } });
    const legacy = await registerQueue(server.api, member);
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "", content: "no topic" });
    assert.equal(((await messageEvents(modern))[0].message as Event).subject, "");
    assert.equal(((await messageEvents(legacy))[0].message as Event).subject, "general chat");
  });

  test("queue narrows see each user's own flags", async () => {
    const { owner, member } = server.fixtures;
    const mentioned = await registerQueue(server.api, member, { narrow: [["is", "mentioned"]] });
    const channel = await registerQueue(server.api, member, { narrow: [["stream", "GENERAL"]] });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "n", content: "plain" });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "n", content: "@**Max Member** look" });
    await sendMessage(server, owner, { type: "direct", to: JSON.stringify([member.id]), content: "dm" });
    assert.deepEqual((await messageEvents(mentioned)).map((e) => (e.message as Event).content), ["@**Max Member** look"]);
    assert.deepEqual((await messageEvents(channel)).map((e) => (e.message as Event).content), ["plain", "@**Max Member** look"]);
  });

  test("all_public_streams queues get public channel messages with no flags, never private ones", async () => {
    const { owner, admin, member } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { all_public_streams: true });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "pub", content: "public" });
    await sendMessage(server, member, { type: "stream", to: "hidden", topic: "priv", content: "private" });
    const events = await messageEvents(queue);
    assert.deepEqual(events.map((e) => [(e.message as Event).content, e.flags]), [["public", []]]);
  });

  test("direct messages reach every participant, with display_recipient", async () => {
    const { owner, member, moderator } = server.fixtures;
    const queues = await Promise.all([owner, member, moderator].map((u) => registerQueue(server.api, u)));
    const id = await sendMessage(server, member, { type: "direct", to: JSON.stringify([owner.id]), content: "psst" });
    const [ownerEvents, memberEvents, moderatorEvents] = await Promise.all(queues.map(messageEvents));
    assert.equal(moderatorEvents.length, 0);
    for (const events of [ownerEvents, memberEvents]) {
      const message = events[0].message as Event;
      assert.equal(message.id, id);
      assert.equal(message.type, "private");
      assert.equal(message.stream_id, undefined);
      assert.deepEqual(message.display_recipient, [
        { id: owner.id, email: owner.email, full_name: owner.fullName, is_mirror_dummy: false },
        { id: member.id, email: member.email, full_name: member.fullName, is_mirror_dummy: false },
      ]);
    }
    assert.deepEqual(ownerEvents[0].flags, []);
  });

  test("read_by_sender and its client-name default", async () => {
    const { owner } = server.fixtures;
    const queue = await registerQueue(server.api, owner);
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "r", content: "api client" });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "r", content: "mobile" }, { headers: { "user-agent": "ZulipMobile/27.0 (Android 14)" } });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "r", content: "asked read", read_by_sender: true });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "r", content: "asked unread", read_by_sender: false }, { headers: { "user-agent": "ZulipMobile/27.0" } });
    const events = await messageEvents(queue);
    assert.deepEqual(events.map((e) => e.flags), [[], ["read"], ["read"], []]);
    assert.deepEqual(events.map((e) => (e.message as Event).client), ["node", "ZulipMobile", "node", "ZulipMobile"]);
  });

  test("wildcard and group mentions set the flags of exactly the right users", async () => {
    const { owner, member, moderator } = server.fixtures;
    const queues = await Promise.all([owner, member, moderator].map((u) => registerQueue(server.api, u)));
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "wild", content: "@**all** heads up", read_by_sender: true });
    await sendMessage(server, member, { type: "stream", to: "general", topic: "wild", content: "me too" });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "wild", content: "@**topic** you two", read_by_sender: true });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "wild", content: "@*role:moderators* mods" });
    const [o, m, mod] = await Promise.all(queues.map(messageEvents));
    const all = ["stream_wildcard_mentioned", "wildcard_mentioned"];
    assert.deepEqual(o.map((e) => e.flags), [["read", ...all], [], ["read", "topic_wildcard_mentioned", "wildcard_mentioned"], ["mentioned"]]);
    assert.deepEqual(m.map((e) => e.flags), [all, [], ["topic_wildcard_mentioned", "wildcard_mentioned"], []]);
    assert.deepEqual(mod.map((e) => e.flags), [all, [], [], ["mentioned"]]);
  });

  test("stored flags match the event flags, and later subscribers see earlier messages as historical", async () => {
    const { owner, member, admin } = server.fixtures;
    const before = await sendMessage(server, owner, { type: "stream", to: "general", topic: "periods", content: "@**Max Member** before", read_by_sender: true });
    assert.deepEqual(await flagsOf(owner.id, before), ["read"]);
    assert.deepEqual(await flagsOf(member.id, before), ["mentioned"]);
    assert.deepEqual(await flagsOf(admin.id, before), ["read", "historical"]);
    expectSuccess(await server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
    const during = await sendMessage(server, owner, { type: "stream", to: "general", topic: "periods", content: "while subscribed" });
    assert.deepEqual(await flagsOf(admin.id, before), ["read", "historical"]);
    assert.deepEqual(await flagsOf(admin.id, during), []);
    expectSuccess(await server.api.delete(admin, "/users/me/subscriptions", { subscriptions: JSON.stringify(["general"]) }));
    const afterLeaving = await sendMessage(server, owner, { type: "stream", to: "general", topic: "periods", content: "after" });
    assert.deepEqual(await flagsOf(admin.id, during), []);
    assert.deepEqual(await flagsOf(admin.id, afterLeaving), ["read", "historical"]);
    expectSuccess(await server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
    assert.deepEqual(await flagsOf(admin.id, afterLeaving), ["read", "historical"], "the gap stays a gap");
  });

  test("automatic follow on starting a topic: user_topic event and automatic_new_visibility_policy", async () => {
    const { owner, member } = server.fixtures;
    await setUserSettings(server, owner.id, { automatically_follow_topics_policy: 3 });
    const queue = await registerQueue(server.api, owner, { event_types: ["user_topic"] });
    const first = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "general", topic: "Fresh", content: "start" }));
    assert.equal(first.automatic_new_visibility_policy, 3);
    const again = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "general", topic: "fresh", content: "again" }));
    assert.equal(again.automatic_new_visibility_policy, undefined);
    // Someone else's topic: initiation does not apply.
    await sendMessage(server, member, { type: "stream", to: "general", topic: "theirs", content: "mine first" });
    const reply = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "general", topic: "theirs", content: "reply" }));
    assert.equal(reply.automatic_new_visibility_policy, undefined);
    const events = withoutIds(await pollEvents(server.api, queue));
    assert.equal(events.length, 1);
    assert.deepEqual({ ...events[0], last_updated: 0 }, { type: "user_topic", stream_id: generalId, topic_name: "Fresh", last_updated: 0, visibility_policy: 3 });
    await setUserSettings(server, owner.id, { automatically_follow_topics_policy: 4 });
  });

  test("automatic unmute when sending to a muted channel", async () => {
    const { moderator } = server.fixtures;
    await setUserSettings(server, moderator.id, { automatically_unmute_topics_in_muted_streams_policy: 2 });
    expectSuccess(await server.api.post(moderator, "/users/me/subscriptions/properties", { subscription_data: JSON.stringify([{ stream_id: generalId, property: "is_muted", value: true }]) }));
    const queue = await registerQueue(server.api, moderator, { event_types: ["user_topic"] });
    const sent = expectSuccess(await server.api.post(moderator, "/messages", { type: "stream", to: "general", topic: "muted here", content: "x" }));
    assert.equal(sent.automatic_new_visibility_policy, 2);
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)).map((e) => [e.topic_name, e.visibility_policy]), [["muted here", 2]]);
    const twice = expectSuccess(await server.api.post(moderator, "/messages", { type: "stream", to: "general", topic: "muted here", content: "y" }));
    assert.equal(twice.automatic_new_visibility_policy, undefined);
  });

  test("mentioned users who follow topics where mentioned get a user_topic event", async () => {
    const { owner, member } = server.fixtures;
    await setUserSettings(server, member.id, { automatically_follow_topics_where_mentioned: true });
    const queue = await registerQueue(server.api, member, { event_types: ["user_topic"] });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "ping", content: "@**Max Member** ping" });
    await sendMessage(server, owner, { type: "stream", to: "general", topic: "ping", content: "@**Max Member** again" });
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)).map((e) => [e.topic_name, e.visibility_policy]), [["ping", 3]]);
    await setUserSettings(server, member.id, { automatically_follow_topics_where_mentioned: false });
  });

  test("concurrent sends reach every queue in message-id order", async () => {
    const { owner, member, moderator } = server.fixtures;
    const queue = await registerQueue(server.api, moderator, { event_types: ["message"] });
    const senders = [owner, member, moderator];
    const sent: number[] = [];
    for (let round = 0; round < 6; round++) {
      const ids = await Promise.all(Array.from({ length: 15 }, (_, i) => sendMessage(server, senders[i % senders.length], { type: "stream", to: "general", topic: "race", content: `round ${round} #${i}` })));
      sent.push(...ids);
    }
    // Each send's events are published before its response, so one poll holds them all.
    const received = (await messageEvents(queue)).map((event) => (event.message as { id: number }).id);
    assert.deepEqual(received, [...sent].sort((a, b) => a - b));
  });
});

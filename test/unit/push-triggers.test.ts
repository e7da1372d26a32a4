/**
 * Who gets a phone notification and why (actions/push/triggers.ts), rule by rule, in Zulip's order:
 * the reasons as of the send, then the trigger once whether the user is away is known.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { pushReasons, pushTrigger, type Standing } from "../../src/actions/push/triggers.ts";
import { MESSAGE_FLAG } from "../../src/store/schema/database.ts";
import { VISIBILITY_POLICY } from "../../src/store/messages/user-topics.ts";

const SETTINGS = {
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_stream_push_notifications: false,
  wildcard_mentions_notify: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
};
type Case = Standing & { idle: boolean };
const channel = (over: Partial<Case> = {}): Case => ({
  flags: 0,
  direct: false,
  channelWildcard: false,
  settings: SETTINGS,
  subscription: { push_notifications: null, wildcard_mentions_notify: null, is_muted: false },
  topicPolicy: VISIBILITY_POLICY.inherit,
  mutedSender: false,
  idle: true,
  ...over,
});
const decide = ({ idle, ...standing }: Case) => pushTrigger(pushReasons(standing), idle);

test("direct messages and mentions notify, gated by the offline switch", () => {
  assert.equal(decide(channel({ direct: true, subscription: null })), "direct_message");
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.mentioned })), "mentioned");
  const off = { ...SETTINGS, enable_offline_push_notifications: false };
  assert.equal(decide(channel({ direct: true, subscription: null, settings: off })), null);
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.mentioned, settings: off })), null);
});

test("nothing for read messages, muted senders, or an active user with online push off", () => {
  assert.equal(decide(channel({ direct: true, flags: MESSAGE_FLAG.read })), null);
  assert.equal(decide(channel({ direct: true, mutedSender: true })), null);
  assert.equal(decide(channel({ direct: true, idle: false, settings: { ...SETTINGS, enable_online_push_notifications: false } })), null);
  assert.equal(decide(channel({ direct: true, idle: false })), "direct_message");
});

test("wildcards: followed topics first, then the user's or subscription's setting; a muted channel or topic silences them", () => {
  const followed = VISIBILITY_POLICY.followed;
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.topic_wildcard_mentioned, topicPolicy: followed })), "topic_wildcard_mentioned_in_followed_topic");
  assert.equal(decide(channel({ channelWildcard: true, topicPolicy: followed })), "stream_wildcard_mentioned_in_followed_topic");
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.topic_wildcard_mentioned })), "topic_wildcard_mentioned");
  assert.equal(decide(channel({ channelWildcard: true })), "stream_wildcard_mentioned");
  assert.equal(decide(channel({ channelWildcard: true, settings: { ...SETTINGS, wildcard_mentions_notify: false } })), null);
  assert.equal(decide(channel({ channelWildcard: true, subscription: { push_notifications: null, wildcard_mentions_notify: false, is_muted: false } })), null);
  assert.equal(decide(channel({ channelWildcard: true, subscription: { push_notifications: null, wildcard_mentions_notify: null, is_muted: true } })), null);
  assert.equal(decide(channel({ channelWildcard: true, topicPolicy: VISIBILITY_POLICY.muted })), null);
});

test("followed topics and channel push; an unmuted topic in a muted channel still notifies", () => {
  assert.equal(decide(channel({ topicPolicy: VISIBILITY_POLICY.followed })), "followed_topic_push_notify");
  assert.equal(decide(channel()), null);
  assert.equal(decide(channel({ settings: { ...SETTINGS, enable_stream_push_notifications: true } })), "stream_push_notify");
  const pushSub = { push_notifications: true, wildcard_mentions_notify: null, is_muted: true };
  assert.equal(decide(channel({ subscription: pushSub })), null);
  assert.equal(decide(channel({ subscription: pushSub, topicPolicy: VISIBILITY_POLICY.unmuted })), "stream_push_notify");
});

test("the reasons hold every trigger that applies, the first wins; nothing is recorded for a read message", () => {
  const { idle: _idle, ...standing } = channel({ flags: MESSAGE_FLAG.mentioned, topicPolicy: VISIBILITY_POLICY.followed });
  const reasons = pushReasons(standing);
  assert.equal(pushTrigger(reasons, true), "mentioned");
  // Without the mention (reason bit 1, after direct_message), following the topic is the reason.
  assert.equal(pushTrigger(reasons & ~0b10, true), "followed_topic_push_notify");
  assert.equal(pushReasons({ ...standing, flags: MESSAGE_FLAG.mentioned | MESSAGE_FLAG.read }), 0);
  assert.equal(pushReasons({ ...standing, flags: 0, topicPolicy: VISIBILITY_POLICY.inherit }), 0);
});

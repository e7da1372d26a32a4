/**
 * Who gets a phone notification or a missed-message email and why (actions/push/triggers.ts),
 * rule by rule, in Zulip's order: the reasons as of the send, then the trigger once whether the
 * user is away is known.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { emailTrigger, notifyReasons, pushTrigger, type Standing, type Switches } from "../../src/actions/push/triggers.ts";
import { MESSAGE_FLAG } from "../../src/store/schema/database.ts";
import { VISIBILITY_POLICY } from "../../src/store/messages/user-topics.ts";

const SWITCHES: Switches = { mentions: true, followedTopics: true, channel: false, wildcards: true, followedTopicWildcards: true, whileOnline: true };
type Case = Standing & { idle: boolean };
const channel = (over: Partial<Case> = {}): Case => ({
  flags: 0,
  direct: false,
  channelWildcard: false,
  switches: SWITCHES,
  channelMuted: false,
  topicPolicy: VISIBILITY_POLICY.inherit,
  mutedSender: false,
  idle: true,
  ...over,
});
const switched = (over: Partial<Switches>) => ({ switches: { ...SWITCHES, ...over } });
const decide = ({ idle, ...standing }: Case) => pushTrigger(notifyReasons(standing), idle);

test("direct messages and mentions notify, gated by the offline switch", () => {
  assert.equal(decide(channel({ direct: true })), "direct_message");
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.mentioned })), "mentioned");
  assert.equal(decide(channel({ direct: true, ...switched({ mentions: false }) })), null);
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.mentioned, ...switched({ mentions: false }) })), null);
});

test("nothing for read messages, muted senders, or an active user with online push off", () => {
  assert.equal(decide(channel({ direct: true, flags: MESSAGE_FLAG.read })), null);
  assert.equal(decide(channel({ direct: true, mutedSender: true })), null);
  assert.equal(decide(channel({ direct: true, idle: false, ...switched({ whileOnline: false }) })), null);
  assert.equal(decide(channel({ direct: true, idle: false })), "direct_message");
});

test("wildcards: followed topics first, then the user's or subscription's setting; a muted channel or topic silences them", () => {
  const followed = VISIBILITY_POLICY.followed;
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.topic_wildcard_mentioned, topicPolicy: followed })), "topic_wildcard_mentioned_in_followed_topic");
  assert.equal(decide(channel({ channelWildcard: true, topicPolicy: followed })), "stream_wildcard_mentioned_in_followed_topic");
  assert.equal(decide(channel({ flags: MESSAGE_FLAG.topic_wildcard_mentioned })), "topic_wildcard_mentioned");
  assert.equal(decide(channel({ channelWildcard: true })), "stream_wildcard_mentioned");
  assert.equal(decide(channel({ channelWildcard: true, ...switched({ wildcards: false }) })), null);
  assert.equal(decide(channel({ channelWildcard: true, channelMuted: true })), null);
  assert.equal(decide(channel({ channelWildcard: true, topicPolicy: VISIBILITY_POLICY.muted })), null);
});

test("followed topics and channel notifications; an unmuted topic in a muted channel still notifies", () => {
  assert.equal(decide(channel({ topicPolicy: VISIBILITY_POLICY.followed })), "followed_topic_push_notify");
  assert.equal(decide(channel()), null);
  assert.equal(decide(channel(switched({ channel: true }))), "stream_push_notify");
  assert.equal(decide(channel({ ...switched({ channel: true }), channelMuted: true })), null);
  assert.equal(decide(channel({ ...switched({ channel: true }), channelMuted: true, topicPolicy: VISIBILITY_POLICY.unmuted })), "stream_push_notify");
});

test("the reasons hold every trigger that applies, the first wins; nothing is recorded for a read message", () => {
  const { idle: _idle, ...standing } = channel({ flags: MESSAGE_FLAG.mentioned, topicPolicy: VISIBILITY_POLICY.followed });
  const reasons = notifyReasons(standing);
  assert.equal(pushTrigger(reasons, true), "mentioned");
  // Without the mention (reason bit 1, after direct_message), following the topic is the reason.
  assert.equal(pushTrigger(reasons & ~0b10, true), "followed_topic_push_notify");
  assert.equal(notifyReasons({ ...standing, flags: MESSAGE_FLAG.mentioned | MESSAGE_FLAG.read }), 0);
  assert.equal(notifyReasons({ ...standing, flags: 0, topicPolicy: VISIBILITY_POLICY.inherit }), 0);
});

test("email triggers: the same reasons, email's names for followed topics and channels, never the online bit", () => {
  const email = { ...SWITCHES, whileOnline: false };
  const reasonsOf = (over: Partial<Case>) => {
    const { idle: _idle, ...standing } = channel({ switches: email, ...over });
    return notifyReasons(standing);
  };
  assert.equal(emailTrigger(reasonsOf({ direct: true })), "direct_message");
  assert.equal(emailTrigger(reasonsOf({ flags: MESSAGE_FLAG.mentioned, topicPolicy: VISIBILITY_POLICY.followed })), "mentioned");
  assert.equal(emailTrigger(reasonsOf({ topicPolicy: VISIBILITY_POLICY.followed })), "followed_topic_email_notify");
  assert.equal(emailTrigger(reasonsOf({ switches: { ...email, channel: true } })), "stream_email_notify");
  assert.equal(emailTrigger(reasonsOf({ channelWildcard: true })), "stream_wildcard_mentioned");
  assert.equal(emailTrigger(reasonsOf({})), null);
  // Without the online bit, a user at their desk is never notified on their phone by these reasons.
  assert.equal(pushTrigger(reasonsOf({ direct: true }), false), null);
});

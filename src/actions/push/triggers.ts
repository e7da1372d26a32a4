/**
 * Who gets a phone notification of a new message, and why (Zulip's UserMessageNotificationsData
 * and its get_push_notification_trigger; shared/research/push-e2ee.md §5), in two steps as
 * upstream takes them:
 * - at the send, from each recipient's standing as of then (flags, settings, subscription, topic
 *   policy, muting), the reasons that could notify them (`pushReasons`: a bit per trigger, and
 *   whether they take notifications while online), recorded with the send (notify-facts.ts);
 * - when the notification is sent, whether they are away (`idle`) picks the trigger
 *   (`pushTrigger`: the first reason in upstream's order).
 * Pure: the callers gather the standing.
 */
import type { PushTrigger } from "../../present/push-payloads.ts";
import { MESSAGE_FLAG } from "../../store/schema/database.ts";
import { VISIBILITY_POLICY } from "../../store/messages/user-topics.ts";

/** The user settings the decision reads. */
export type PushSettings = {
  enable_offline_push_notifications: boolean;
  enable_online_push_notifications: boolean;
  enable_stream_push_notifications: boolean;
  wildcard_mentions_notify: boolean;
  enable_followed_topic_push_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
};

/** One recipient's standing towards the message, as of its send. */
export type Standing = {
  /** Their flag bits for the message (stored or default). */
  flags: number;
  /** A direct message (else a channel message). */
  direct: boolean;
  /** The message mentions the whole channel (@all, @everyone, @channel). */
  channelWildcard: boolean;
  settings: PushSettings;
  /** Their subscription's overrides (null: the user setting) and muting; null for a direct message. */
  subscription: { push_notifications: boolean | null; wildcard_mentions_notify: boolean | null; is_muted: boolean } | null;
  /** Their visibility policy for the topic (VISIBILITY_POLICY). */
  topicPolicy: number;
  /** They muted the sender. */
  mutedSender: boolean;
};

/** Upstream's triggers, in the order the first that applies wins; reason bit i is TRIGGER_ORDER[i]. */
const TRIGGER_ORDER: readonly PushTrigger[] = [
  "direct_message",
  "mentioned",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "followed_topic_push_notify",
  "stream_push_notify",
];
const bit = (trigger: PushTrigger) => 1 << TRIGGER_ORDER.indexOf(trigger);
/** The reasons' bit for "notify even while online" (enable_online_push_notifications). */
const ONLINE_PUSH = 1 << TRIGGER_ORDER.length;

/** Whether channel notifications may reach the user in this topic (Zulip's user_allows_notifications_in_StreamTopic). */
function allowsNotificationsInTopic(s: Standing): boolean {
  if (s.topicPolicy === VISIBILITY_POLICY.muted) return false;
  if (s.subscription?.is_muted) return s.topicPolicy === VISIBILITY_POLICY.unmuted || s.topicPolicy === VISIBILITY_POLICY.followed;
  return true;
}

/** Every trigger the standing allows, as bits (no ONLINE_PUSH). */
function triggerBits(s: Standing): number {
  // Direct messages and mentions (wildcards too) are gated by the "offline" switch: Zulip's
  // dm_mention_push_disabled_user_ids.
  const mentionsPush = s.settings.enable_offline_push_notifications;
  if (s.direct) return mentionsPush ? bit("direct_message") : 0;
  let bits = 0;
  if (mentionsPush && (s.flags & MESSAGE_FLAG.mentioned) !== 0) bits |= bit("mentioned");
  const follows = s.topicPolicy === VISIBILITY_POLICY.followed;
  const topicWildcard = (s.flags & MESSAGE_FLAG.topic_wildcard_mentioned) !== 0;
  const followedWildcards = mentionsPush && follows && s.settings.enable_followed_topic_wildcard_mentions_notify;
  if (followedWildcards && topicWildcard) bits |= bit("topic_wildcard_mentioned_in_followed_topic");
  if (followedWildcards && s.channelWildcard) bits |= bit("stream_wildcard_mentioned_in_followed_topic");
  const allowed = allowsNotificationsInTopic(s);
  const wildcards = mentionsPush && allowed && (s.subscription?.wildcard_mentions_notify ?? s.settings.wildcard_mentions_notify);
  if (wildcards && topicWildcard) bits |= bit("topic_wildcard_mentioned");
  if (wildcards && s.channelWildcard) bits |= bit("stream_wildcard_mentioned");
  if (follows && s.settings.enable_followed_topic_push_notifications) bits |= bit("followed_topic_push_notify");
  if (allowed && (s.subscription?.push_notifications ?? s.settings.enable_stream_push_notifications)) bits |= bit("stream_push_notify");
  return bits;
}

/**
 * The reasons the recipient could be notified of the message, as of the standing: 0 when none
 * (they muted the sender, it is read already, or nothing they chose applies).
 */
export function pushReasons(s: Standing): number {
  if (s.mutedSender || (s.flags & MESSAGE_FLAG.read) !== 0) return 0;
  const bits = triggerBits(s);
  if (bits === 0) return 0;
  return s.settings.enable_online_push_notifications ? bits | ONLINE_PUSH : bits;
}

/** Why the recipient is notified, given their reasons and whether they are away now; null: not notified. */
export function pushTrigger(reasons: number, idle: boolean): PushTrigger | null {
  if (!idle && (reasons & ONLINE_PUSH) === 0) return null;
  for (const [i, trigger] of TRIGGER_ORDER.entries()) if ((reasons & (1 << i)) !== 0) return trigger;
  return null;
}

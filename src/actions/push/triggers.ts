/**
 * Who is notified of a new message, and why (Zulip's UserMessageNotificationsData with its
 * get_push_notification_trigger and get_email_notification_trigger; shared/research/push-e2ee.md
 * §5), for both kinds of notification a message can cause while its recipient is away: a phone
 * notification and a missed-message email. Both follow the same rules in the same order; what
 * differs is which of the user's switches apply (the push ones or the email ones), which
 * notify-facts.ts resolves into a Standing. Two steps, as upstream takes them:
 * - at the send, from each recipient's standing as of then (flags, switches, topic policy,
 *   muting), the reasons that could notify them (`notifyReasons`: a bit per trigger; for push,
 *   also whether they take notifications while online), recorded with the send (notify-facts.ts);
 * - when the notification is decided, whether they are away picks the trigger: `pushTrigger`
 *   (the first reason in upstream's order, unless at their desk without online push),
 *   `emailTrigger` (the first reason; email goes only to users who are away).
 * Pure: the callers gather the standing.
 */
import type { PushTrigger } from "../../present/push-payloads.ts";
import { MESSAGE_FLAG } from "../../store/schema/database.ts";
import { VISIBILITY_POLICY } from "../../store/messages/user-topics.ts";

/**
 * What the user's settings and subscription let through, for one kind of notification (push or
 * email), each already resolved (a subscription's override, else the user's setting).
 */
export type Switches = {
  /** Direct messages and mentions, wildcards included (enable_offline_push_notifications / enable_offline_email_notifications). */
  mentions: boolean;
  /** Every message of a followed topic (enable_followed_topic_push_notifications / ..._email_notifications). */
  followedTopics: boolean;
  /** Every message of the channel (the subscription's push_notifications / email_notifications, else enable_stream_*_notifications). */
  channel: boolean;
  /** Wildcard mentions count as mentions (the subscription's wildcard_mentions_notify, else the user's). */
  wildcards: boolean;
  /** Wildcard mentions in followed topics count (enable_followed_topic_wildcard_mentions_notify). */
  followedTopicWildcards: boolean;
  /** Push only: notify while at the desk too (enable_online_push_notifications). */
  whileOnline: boolean;
};

/** One recipient's standing towards the message, as of its send. */
export type Standing = {
  /** Their flag bits for the message (stored or default). */
  flags: number;
  /** A direct message (else a channel message). */
  direct: boolean;
  /** The message mentions the whole channel (@all, @everyone, @channel). */
  channelWildcard: boolean;
  switches: Switches;
  /** They muted the channel (false for a direct message). */
  channelMuted: boolean;
  /** Their visibility policy for the topic (VISIBILITY_POLICY). */
  topicPolicy: number;
  /** They muted the sender. */
  mutedSender: boolean;
};

/**
 * Upstream's triggers, in the order the first that applies wins; reason bit i is TRIGGER_ORDER[i].
 * The last two are the push names; email names them followed_topic_email_notify and stream_email_notify.
 */
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
/** The reasons' bit for "notify even while online" (push's enable_online_push_notifications). */
const ONLINE_PUSH = 1 << TRIGGER_ORDER.length;

/** Upstream's email triggers (NotificationTriggers), by the same reason bits. */
export type EmailTrigger = Exclude<PushTrigger, "followed_topic_push_notify" | "stream_push_notify"> | "followed_topic_email_notify" | "stream_email_notify";

/** Whether channel notifications may reach the user in this topic (Zulip's user_allows_notifications_in_StreamTopic). */
function allowsNotificationsInTopic(s: Standing): boolean {
  if (s.topicPolicy === VISIBILITY_POLICY.muted) return false;
  if (s.channelMuted) return s.topicPolicy === VISIBILITY_POLICY.unmuted || s.topicPolicy === VISIBILITY_POLICY.followed;
  return true;
}

/** Every trigger the standing allows, as bits (no ONLINE_PUSH). */
function triggerBits(s: Standing): number {
  // Direct messages and mentions (wildcards too) are gated by the "offline" switch: Zulip's
  // dm_mention_push_disabled_user_ids and dm_mention_email_disabled_user_ids.
  const { mentions } = s.switches;
  if (s.direct) return mentions ? bit("direct_message") : 0;
  let bits = 0;
  if (mentions && (s.flags & MESSAGE_FLAG.mentioned) !== 0) bits |= bit("mentioned");
  const follows = s.topicPolicy === VISIBILITY_POLICY.followed;
  const topicWildcard = (s.flags & MESSAGE_FLAG.topic_wildcard_mentioned) !== 0;
  const followedWildcards = mentions && follows && s.switches.followedTopicWildcards;
  if (followedWildcards && topicWildcard) bits |= bit("topic_wildcard_mentioned_in_followed_topic");
  if (followedWildcards && s.channelWildcard) bits |= bit("stream_wildcard_mentioned_in_followed_topic");
  const allowed = allowsNotificationsInTopic(s);
  const wildcards = mentions && allowed && s.switches.wildcards;
  if (wildcards && topicWildcard) bits |= bit("topic_wildcard_mentioned");
  if (wildcards && s.channelWildcard) bits |= bit("stream_wildcard_mentioned");
  if (follows && s.switches.followedTopics) bits |= bit("followed_topic_push_notify");
  if (allowed && s.switches.channel) bits |= bit("stream_push_notify");
  return bits;
}

/**
 * The reasons the recipient could be notified of the message, as of the standing: 0 when none
 * (they muted the sender, it is read already, or nothing they chose applies). With the push
 * switches, the bit for "while online too" rides along.
 */
export function notifyReasons(s: Standing): number {
  if (s.mutedSender || (s.flags & MESSAGE_FLAG.read) !== 0) return 0;
  const bits = triggerBits(s);
  if (bits === 0) return 0;
  return s.switches.whileOnline ? bits | ONLINE_PUSH : bits;
}

/** The index of the first reason bit set, or -1. */
function firstReason(reasons: number): number {
  for (let i = 0; i < TRIGGER_ORDER.length; i++) if ((reasons & (1 << i)) !== 0) return i;
  return -1;
}

/** Why the recipient is notified on their phones, given their reasons and whether they are away now; null: not notified. */
export function pushTrigger(reasons: number, idle: boolean): PushTrigger | null {
  if (!idle && (reasons & ONLINE_PUSH) === 0) return null;
  const i = firstReason(reasons);
  return i < 0 ? null : TRIGGER_ORDER[i];
}

/** Why the recipient, away, is emailed, given their reasons; null: not emailed. */
export function emailTrigger(reasons: number): EmailTrigger | null {
  const i = firstReason(reasons);
  if (i < 0) return null;
  const trigger = TRIGGER_ORDER[i];
  if (trigger === "followed_topic_push_notify") return "followed_topic_email_notify";
  if (trigger === "stream_push_notify") return "stream_email_notify";
  return trigger;
}

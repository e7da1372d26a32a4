/**
 * Who gets a phone notification of a new message, and why (Zulip's
 * UserMessageNotificationsData.get_push_notification_trigger; shared/research/push-e2ee.md §5).
 * Pure: the caller gathers each recipient's standing (flags, settings, subscription, topic policy,
 * whether they are away) and this decides.
 */
import type { PushTrigger } from "../../present/push-payloads.ts";
import { MESSAGE_FLAG } from "../../store/schema.ts";
import { VISIBILITY_POLICY } from "../../store/user-topics.ts";


/** The user settings the decision reads. */
export type PushSettings = {
  enable_offline_push_notifications: boolean;
  enable_online_push_notifications: boolean;
  enable_stream_push_notifications: boolean;
  wildcard_mentions_notify: boolean;
  enable_followed_topic_push_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
};

/** One recipient's standing towards the message. */
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
  /** No client of theirs is open, or they have not been active lately. */
  idle: boolean;
};

/** Whether channel notifications may reach the user in this topic (Zulip's user_allows_notifications_in_StreamTopic). */
function allowsNotificationsInTopic(s: Standing): boolean {
  if (s.topicPolicy === VISIBILITY_POLICY.muted) return false;
  if (s.subscription?.is_muted) return s.topicPolicy === VISIBILITY_POLICY.unmuted || s.topicPolicy === VISIBILITY_POLICY.followed;
  return true;
}

/** Why the recipient gets a notification, or null when they get none. */
export function pushTrigger(s: Standing): PushTrigger | null {
  if (!s.idle && !s.settings.enable_online_push_notifications) return null;
  if (s.mutedSender || (s.flags & MESSAGE_FLAG.read) !== 0) return null;
  // Direct messages and mentions (wildcards too) are gated by the "offline" switch: Zulip's
  // dm_mention_push_disabled_user_ids.
  const mentionsPush = s.settings.enable_offline_push_notifications;
  if (s.direct) return mentionsPush ? "direct_message" : null;
  if (mentionsPush && (s.flags & MESSAGE_FLAG.mentioned) !== 0) return "mentioned";
  const follows = s.topicPolicy === VISIBILITY_POLICY.followed;
  const topicWildcard = (s.flags & MESSAGE_FLAG.topic_wildcard_mentioned) !== 0;
  const followedWildcards = mentionsPush && follows && s.settings.enable_followed_topic_wildcard_mentions_notify;
  if (followedWildcards && topicWildcard) return "topic_wildcard_mentioned_in_followed_topic";
  if (followedWildcards && s.channelWildcard) return "stream_wildcard_mentioned_in_followed_topic";
  const allowed = allowsNotificationsInTopic(s);
  const wildcards = mentionsPush && allowed && (s.subscription?.wildcard_mentions_notify ?? s.settings.wildcard_mentions_notify);
  if (wildcards && topicWildcard) return "topic_wildcard_mentioned";
  if (wildcards && s.channelWildcard) return "stream_wildcard_mentioned";
  if (follows && s.settings.enable_followed_topic_push_notifications) return "followed_topic_push_notify";
  if (allowed && (s.subscription?.push_notifications ?? s.settings.enable_stream_push_notifications)) return "stream_push_notify";
  return null;
}

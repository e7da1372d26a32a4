/**
 * What a phone receives about a message (shared/research/push-e2ee.md §3 and §7): the E2EE
 * payload (FL 406-420, encrypted per device by actions/push), and the legacy FCM and APNs payloads
 * the Zulip app reads from tokens registered with the plain protocol; and their removal forms.
 * Key order follows upstream's (its JSON keeps insertion order).
 */
import { dummyEmail } from "../model/emails.ts";
import { INACCESSIBLE_USER_NAME } from "./users.ts";

/** Why a user is notified (Zulip's NotificationTriggers), in the order the first match wins (actions/push/triggers.ts). */
export type PushTrigger =
  | "direct_message"
  | "mentioned"
  | "topic_wildcard_mentioned_in_followed_topic"
  | "stream_wildcard_mentioned_in_followed_topic"
  | "topic_wildcard_mentioned"
  | "stream_wildcard_mentioned"
  | "followed_topic_push_notify"
  | "stream_push_notify";

/** The organization, as every payload names it. */
export type PushRealm = { id: number; name: string; siteUrl: string };

/** A message as its notifications describe it (the same for every recipient). */
export type PushMessage = {
  id: number;
  /** UNIX seconds. */
  time: number;
  /** Reduced and truncated (present/push-content.ts). */
  content: string;
  contentTruncated: boolean;
  sender: { id: number; email: string; fullName: string; avatarUrl: string };
  /** A channel message's channel and topic as shown (an empty topic by its display name). */
  channel: { id: number; name: string; topic: string } | null;
  /** A direct message to three or more people: every participant's id, ascending, and full name. */
  group: { ids: number[]; names: string[] } | null;
};

/** The message as a recipient who may not access its sender is told of it: "Unknown user" (Zulip's can_access_sender). */
export function withUnknownSender(m: PushMessage, host: string, unknownAvatarUrl: string): PushMessage {
  return { ...m, sender: { id: m.sender.id, email: dummyEmail(m.sender.id, host), fullName: INACCESSIBLE_USER_NAME, avatarUrl: unknownAvatarUrl } };
}

/** One recipient's notification: who, why, and the group mention that triggered it (if not a personal mention). */
export type PushFor = { userId: number; trigger: PushTrigger; mentionedGroup: { id: number; name: string } | null };

/** Message ids a removal carries: the newest 200, ascending. */
export function removalIds(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b).slice(-200);
}

/** The FL 406-420 plaintext of a new-message notification (§3.1). */
export function e2eeMessagePayload(realm: PushRealm, m: PushMessage, to: PushFor): Record<string, unknown> {
  const out: Record<string, unknown> = {
    realm_url: realm.siteUrl,
    realm_name: realm.name,
    user_id: to.userId,
    sender_id: m.sender.id,
    type: "message",
    message_id: m.id,
    time: m.time,
    content: m.content,
    sender_full_name: m.sender.fullName,
    sender_avatar_url: m.sender.avatarUrl,
  };
  if (m.channel) Object.assign(out, { recipient_type: "channel", channel_id: m.channel.id, channel_name: m.channel.name, topic: m.channel.topic });
  else {
    out.recipient_type = "direct";
    if (m.group) out.pm_users = m.group.ids.join(",");
  }
  if (to.mentionedGroup) Object.assign(out, { mentioned_user_group_id: to.mentionedGroup.id, mentioned_user_group_name: to.mentionedGroup.name });
  return out;
}

/** The FL 406-420 plaintext of a removal (§3.2). */
export function e2eeRemovePayload(realm: PushRealm, userId: number, messageIds: readonly number[]): Record<string, unknown> {
  return { realm_url: realm.siteUrl, realm_name: realm.name, user_id: userId, type: "remove", message_ids: removalIds(messageIds) };
}

/** Zulip's get_base_payload: what every legacy payload starts with (and the base of the relay's test notification). */
export function legacyBasePayload(realm: PushRealm, userId: number): Record<string, unknown> {
  return { server: new URL(realm.siteUrl).host, realm_id: realm.id, realm_name: realm.name, realm_uri: realm.siteUrl, realm_url: realm.siteUrl, user_id: userId };
}

/** Zulip's legacy get_message_payload: the base, the sender, and where the message went. */
function legacyMessageData(realm: PushRealm, m: PushMessage, to: PushFor): Record<string, unknown> {
  const out = { ...legacyBasePayload(realm, to.userId), sender_id: m.sender.id, sender_email: m.sender.email, time: m.time } as Record<string, unknown>;
  if (to.mentionedGroup) Object.assign(out, { mentioned_user_group_id: to.mentionedGroup.id, mentioned_user_group_name: to.mentionedGroup.name });
  if (m.channel) Object.assign(out, { recipient_type: "stream", stream: m.channel.name, stream_id: m.channel.id, topic: m.channel.topic });
  else {
    out.recipient_type = "private";
    if (m.group) out.pm_users = m.group.ids.join(",");
  }
  return out;
}

/** The legacy FCM data of a new message (Zulip's get_message_payload_gcm). */
export function legacyFcmMessage(realm: PushRealm, m: PushMessage, to: PushFor): Record<string, unknown> {
  return {
    ...legacyMessageData(realm, m, to),
    event: "message",
    zulip_message_id: m.id,
    content: m.content,
    content_truncated: m.contentTruncated,
    sender_full_name: m.sender.fullName,
    sender_avatar_url: m.sender.avatarUrl,
  };
}

const WILDCARD_TRIGGERS: ReadonlySet<PushTrigger> = new Set([
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
]);

/** Zulip's get_apns_alert_subtitle. */
function apnsSubtitle(m: PushMessage, to: PushFor): string {
  if (to.trigger === "mentioned") return to.mentionedGroup ? `${m.sender.fullName} mentioned @${to.mentionedGroup.name}:` : `${m.sender.fullName} mentioned you:`;
  if (WILDCARD_TRIGGERS.has(to.trigger)) return `${m.sender.fullName} mentioned everyone:`;
  if (!m.channel && !m.group) return "";
  return `${m.sender.fullName}:`;
}

/** Zulip's get_apns_alert_title: the group's names, the channel and topic, or the sender. */
function apnsTitle(m: PushMessage): string {
  if (m.group) return [...m.group.names].sort().join(", ");
  if (m.channel) return `#${m.channel.name} > ${m.channel.topic}`;
  return m.sender.fullName;
}

/** The legacy APNs payload of a new message (Zulip's get_message_payload_apns; no unread badge, as upstream's count is 0). */
export function legacyApnsMessage(realm: PushRealm, m: PushMessage, to: PushFor): Record<string, unknown> {
  return {
    alert: { title: apnsTitle(m), subtitle: apnsSubtitle(m, to), body: m.content },
    sound: "default",
    badge: 0,
    custom: { zulip: { ...legacyMessageData(realm, m, to), message_ids: [m.id] } },
  };
}

/** The legacy FCM data of a removal (Zulip's get_remove_payload_gcm). */
export function legacyFcmRemove(realm: PushRealm, userId: number, messageIds: readonly number[]): Record<string, unknown> {
  return { ...legacyBasePayload(realm, userId), event: "remove", zulip_message_ids: removalIds(messageIds).join(",") };
}

/** The legacy APNs payload of a removal (Zulip's get_remove_payload_apns). */
export function legacyApnsRemove(realm: PushRealm, userId: number, messageIds: readonly number[]): Record<string, unknown> {
  return { badge: 0, custom: { zulip: legacyFcmRemove(realm, userId, messageIds) } };
}

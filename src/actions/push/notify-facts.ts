/**
 * Who may be notified of a message, and why, as of its send (Zulip computes this in the send,
 * get_recipient_info, and hands it on: a later follow, mute or setting change must not change
 * what an earlier message notifies). Read in the send's transaction, before the send's own
 * automatic follows, as upstream reads it before saving the message.
 *
 * The facts are compact, to ride in the job the send writes: per recipient, the reasons that
 * could notify them (triggers.ts's bits), recipients with none left out. What is only known
 * when the notification goes out stays for then: whether the user is away, whether they read the
 * message meanwhile, and their phones. Both kinds of notification read the same standings here:
 * phone notifications (`kind` "push", the push switches) and missed-message emails ("email",
 * the email switches; actions/email-notifications/).
 */
import type { MessageRow, UserRow } from "../../store/schema/database.ts";
import { mutersOf } from "../../store/users/muted-users.ts";
import { channelNotifyOverrides, topicPolicies, type NotifyOverrides } from "../../store/push/push-notifications.ts";
import type { Db } from "../../store/schema/types.ts";
import { userSetting } from "../../model/user-settings.ts";
import { VISIBILITY_POLICY } from "../../store/messages/user-topics.ts";
import { realmUsersById } from "../../store/users/users.ts";
import { notifyReasons, type Standing, type Switches } from "./triggers.ts";

/** Each recipient who could be notified, with their reasons: `[userId, reasons]`, as JSON carries it. */
export type NotifyFacts = Array<[number, number]>;

/** Which notification the facts are for: phone notifications, or missed-message emails. */
export type NotifyKind = "push" | "email";

/** A message as the facts need it, and its recipients' flag bits as of the send. */
export type SentMessage = {
  message: Pick<MessageRow, "id" | "realm_id" | "sender_id" | "stream_id" | "topic" | "stream_wildcard_mention">;
  flagsOf: (userId: number) => number;
};

/** Switches that let nothing through (a placeholder). */
const NO_SWITCHES: Switches = { mentions: false, followedTopics: false, channel: false, wildcards: false, followedTopicWildcards: false, whileOnline: false };

const on = (user: UserRow, name: Parameters<typeof userSetting>[1]) => userSetting(user, name) === true;

/** A subscription's override of a setting (null: none), as a boolean. */
const override = (v: number | null | undefined): boolean | null => (v === null || v === undefined ? null : v === 1);

/**
 * The user's switches for one kind of notification (Zulip's get_recipient_info sets). An email
 * goes to nobody whose enable_offline_email_notifications is off: upstream drops every
 * missed-message email of such a user when it is sent (handle_missedmessage_emails).
 */
function switchesOf(kind: NotifyKind, user: UserRow, sub: NotifyOverrides | undefined): Switches | null {
  const wildcards = override(sub?.wildcard_mentions_notify) ?? on(user, "wildcard_mentions_notify");
  const followedTopicWildcards = on(user, "enable_followed_topic_wildcard_mentions_notify");
  if (kind === "push") {
    return {
      mentions: on(user, "enable_offline_push_notifications"),
      followedTopics: on(user, "enable_followed_topic_push_notifications"),
      channel: override(sub?.push_notifications) ?? on(user, "enable_stream_push_notifications"),
      wildcards,
      followedTopicWildcards,
      whileOnline: on(user, "enable_online_push_notifications"),
    };
  }
  if (!on(user, "enable_offline_email_notifications")) return null;
  return {
    mentions: true,
    followedTopics: on(user, "enable_followed_topic_email_notifications"),
    channel: override(sub?.email_notifications) ?? on(user, "enable_stream_email_notifications"),
    wildcards,
    followedTopicWildcards,
    whileOnline: false,
  };
}

/**
 * Each user's switches without a subscription override, per kind, by the user's row: the rows
 * come from the read cache, which makes new ones when the users table changes (a setting
 * changed), so a send to a large channel reads each user's settings once, not once per message.
 */
const plainSwitches = { push: new WeakMap<UserRow, Switches | null>(), email: new WeakMap<UserRow, Switches | null>() };

/** The user's switches, through plainSwitches when their subscription overrides nothing. */
function userSwitches(kind: NotifyKind, user: UserRow, sub: NotifyOverrides | undefined): Switches | null {
  if (sub !== undefined) return switchesOf(kind, user, sub);
  const cache = plainSwitches[kind];
  let switches = cache.get(user);
  if (switches === undefined) {
    switches = switchesOf(kind, user, undefined);
    cache.set(user, switches);
  }
  return switches;
}

/**
 * The `kind` facts of `candidateIds` (recipients other than the sender). Everything read here is
 * kept by the read cache (the realm's users, who muted the sender, the channel's subscription
 * overrides, the topic's policies), so a send usually runs no statement for it. Deactivated users
 * and bots are left out.
 */
export async function notifyFacts(db: Db, sent: SentMessage, candidateIds: readonly number[], kind: NotifyKind): Promise<NotifyFacts> {
  const { message } = sent;
  const direct = message.stream_id === null;
  const [users, muters, overrides, policies] = await Promise.all([
    realmUsersById(db, message.realm_id),
    mutersOf(db, message.realm_id, message.sender_id),
    direct ? null : channelNotifyOverrides(db, message.realm_id, message.stream_id as number),
    direct ? null : topicPolicies(db, message.realm_id, message.stream_id as number, message.topic),
  ]);
  const muted = new Set(muters);
  const facts: NotifyFacts = [];
  // One standing, refilled per recipient: a send to a large channel reads thousands.
  const standing: Standing = {
    flags: 0,
    direct,
    channelWildcard: message.stream_wildcard_mention === 1,
    switches: NO_SWITCHES,
    channelMuted: false,
    topicPolicy: VISIBILITY_POLICY.inherit,
    mutedSender: false,
  };
  for (const id of candidateIds) {
    const user = users.get(id);
    if (!user || user.is_active !== 1 || user.is_bot !== 0 || id === message.sender_id) continue;
    const sub = overrides?.get(id);
    const switches = userSwitches(kind, user, sub);
    if (switches === null) continue;
    standing.flags = sent.flagsOf(id);
    standing.switches = switches;
    standing.channelMuted = sub?.is_muted === 1;
    standing.topicPolicy = policies?.get(id) ?? VISIBILITY_POLICY.inherit;
    standing.mutedSender = muted.has(id);
    const reasons = notifyReasons(standing);
    if (reasons !== 0) facts.push([id, reasons]);
  }
  return facts;
}

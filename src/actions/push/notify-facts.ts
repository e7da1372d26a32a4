/**
 * Who may be notified of a message, and why, as of its send (Zulip computes this in the send,
 * get_recipient_info, and hands it on: a later follow, mute or setting change must not change
 * what an earlier message notifies). Read in the send's transaction, before the send's own
 * automatic follows, as upstream reads it before saving the message.
 *
 * The facts are compact, to ride in the job the send writes: per recipient, the reasons that
 * could notify them (triggers.ts's bits), recipients with none left out. What is only known
 * when the notification goes out stays for then: whether the user is away, whether they read the
 * message meanwhile, and their phones. Another consumer of the same send (missed-message email)
 * reads the same standings here and adds its own reason bits beside the push ones.
 */
import type { MessageRow, UserRow } from "../../store/schema/database.ts";
import { mutersOf } from "../../store/users/muted-users.ts";
import { channelPushOverrides, topicPolicies } from "../../store/push/push-notifications.ts";
import type { Db } from "../../store/schema/types.ts";
import { userSetting } from "../../model/user-settings.ts";
import { VISIBILITY_POLICY } from "../../store/messages/user-topics.ts";
import { realmUsersById } from "../../store/users/users.ts";
import { pushReasons, type PushSettings, type Standing } from "./triggers.ts";

/** Each recipient who could be notified, with their reasons: `[userId, reasons]`, as JSON carries it. */
export type NotifyFacts = Array<[number, number]>;

/** A message as the facts need it, and its recipients' flag bits as of the send. */
export type SentMessage = {
  message: Pick<MessageRow, "id" | "realm_id" | "sender_id" | "stream_id" | "topic" | "stream_wildcard_mention">;
  flagsOf: (userId: number) => number;
};

const SETTING_NAMES: ReadonlyArray<keyof PushSettings> = [
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_stream_push_notifications",
  "wildcard_mentions_notify",
  "enable_followed_topic_push_notifications",
  "enable_followed_topic_wildcard_mentions_notify",
];

function pushSettings(user: UserRow): PushSettings {
  const out = {} as PushSettings;
  for (const name of SETTING_NAMES) out[name] = userSetting(user, name) === true;
  return out;
}

const flagOf = (v: number | null | undefined): boolean | null => (v === null || v === undefined ? null : v === 1);

/**
 * The facts of `candidateIds` (recipients other than the sender). Everything read here is kept by
 * the read cache (the realm's users, who muted the sender, the channel's subscription overrides,
 * the topic's policies), so a send usually runs no statement for it. Deactivated users and bots
 * are left out.
 */
export async function notifyFacts(db: Db, sent: SentMessage, candidateIds: readonly number[]): Promise<NotifyFacts> {
  const { message } = sent;
  const direct = message.stream_id === null;
  const [users, muters, overrides, policies] = await Promise.all([
    realmUsersById(db, message.realm_id),
    mutersOf(db, message.realm_id, message.sender_id),
    direct ? null : channelPushOverrides(db, message.realm_id, message.stream_id as number),
    direct ? null : topicPolicies(db, message.realm_id, message.stream_id as number, message.topic),
  ]);
  const facts: NotifyFacts = [];
  for (const id of candidateIds) {
    const user = users.get(id);
    if (!user || user.is_active !== 1 || user.is_bot !== 0 || id === message.sender_id) continue;
    const sub = overrides?.get(id);
    const standing: Standing = {
      flags: sent.flagsOf(id),
      direct,
      channelWildcard: message.stream_wildcard_mention === 1,
      settings: pushSettings(user),
      subscription: direct ? null : { push_notifications: flagOf(sub?.push_notifications), wildcard_mentions_notify: flagOf(sub?.wildcard_mentions_notify), is_muted: sub?.is_muted === 1 },
      topicPolicy: policies?.get(id) ?? VISIBILITY_POLICY.inherit,
      mutedSender: muters.includes(id),
    };
    const reasons = pushReasons(standing);
    if (reasons !== 0) facts.push([id, reasons]);
  }
  return facts;
}

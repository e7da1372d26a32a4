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
import type { MessageRow, UserRow } from "../../store/schema.ts";
import { mutersOf } from "../../store/muted-users.ts";
import { topicStandings } from "../../store/push-notifications.ts";
import type { Db } from "../../store/types.ts";
import { userSetting } from "../../store/user-settings.ts";
import { VISIBILITY_POLICY } from "../../store/user-topics.ts";
import { usersByIds } from "../../store/users.ts";
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
 * The facts of `candidateIds` (recipients other than the sender): the users and who muted the
 * sender come from the read cache; a channel message reads its recipients' subscription and topic
 * settings in one statement. Deactivated users and bots are left out.
 */
export async function notifyFacts(db: Db, sent: SentMessage, candidateIds: number[]): Promise<NotifyFacts> {
  const { message } = sent;
  const users = (await usersByIds(db, message.realm_id, candidateIds)).filter((u) => u.is_active === 1 && u.is_bot === 0 && u.id !== message.sender_id);
  if (users.length === 0) return [];
  const ids = users.map((u) => u.id);
  const [muters, topics] = await Promise.all([
    mutersOf(db, message.realm_id, message.sender_id),
    message.stream_id === null ? null : topicStandings(db, message.realm_id, message.stream_id, message.topic, ids),
  ]);
  const facts: NotifyFacts = [];
  for (const user of users) {
    const topic = topics?.get(user.id);
    const standing: Standing = {
      flags: sent.flagsOf(user.id),
      direct: message.stream_id === null,
      channelWildcard: message.stream_wildcard_mention === 1,
      settings: pushSettings(user),
      subscription: topic ? { push_notifications: flagOf(topic.push_notifications), wildcard_mentions_notify: flagOf(topic.wildcard_mentions_notify), is_muted: topic.is_muted === 1 } : null,
      topicPolicy: topic?.visibility_policy ?? VISIBILITY_POLICY.inherit,
      mutedSender: muters.includes(user.id),
    };
    const reasons = pushReasons(standing);
    if (reasons !== 0) facts.push([user.id, reasons]);
  }
  return facts;
}

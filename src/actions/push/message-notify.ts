/**
 * Phone notifications of new messages (Zulip's handle_push_notification). A send writes one
 * "message" job in its own transaction (doQueueMessagePush), so the sender never waits on this;
 * the relay worker then runs doNotifyMessage: among the message's recipients with a registered
 * phone, it decides who is notified and why (triggers.ts), records the notifications
 * (push_active_notifications, so reading or deleting can take them back), and queues one relay
 * call per user and protocol: remotes/push/notify with the legacy FCM/APNs payloads for tokens,
 * remotes/push/e2ee/notify with the payload sealed per device for E2EE registrations.
 */
import { realmSettings } from "../../permissions/realm-settings.ts";
import { pushText, truncatePushText, mentionsIn } from "../../present/push-content.ts";
import { e2eeMessagePayload, legacyApnsMessage, legacyFcmMessage, withUnknownSender, type PushFor, type PushMessage, type PushRealm } from "../../present/push-payloads.ts";
import { avatarUrl, unknownUserAvatarUrl } from "../../present/users.ts";
import { idsWithoutAccessTo } from "../../permissions/user-access.ts";
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS } from "../../present/presence.ts";
import { apiEmail } from "../../store/emails.ts";
import { effectiveMemberIds } from "../../store/group-membership.ts";
import { defaultFlagBits } from "../../store/message-flags.ts";
import { directRecipientMembers, getMessage } from "../../store/messages.ts";
import { mutersOf } from "../../store/muted-users.ts";
import { insertPushRelayJob, insertPushRelayJobs } from "../../store/push.ts";
import type { PushRelayJobRow } from "../../store/schema-push.ts";
import { flagRowsOfUsers, insertActiveNotifications, lastActiveTimes, phonesOfUsers, usersNotifiedOf, type UserPhones } from "../../store/push-notifications.ts";
import type { MessageRow, RealmRow, UserRow } from "../../store/schema.ts";
import { getStreamsByIds } from "../../store/streams.ts";
import { subscriberIds, subscriptionsOfUsers } from "../../store/subscriptions.ts";
import type { Db } from "../../store/types.ts";
import { groupsByIds } from "../../store/user-groups.ts";
import { userSetting } from "../../store/user-settings.ts";
import { topicPoliciesOfUsers, VISIBILITY_POLICY } from "../../store/user-topics.ts";
import { usersByIds } from "../../store/users.ts";
import type { Config } from "../../config.ts";
import { notifyCallRows } from "./notify-calls.ts";
import { pushTrigger, type PushSettings, type Standing } from "./triggers.ts";

/**
 * Writes the job that decides the message's notifications, in the send's transaction (nothing
 * when push is off). An edit that mentions new people names them in `onlyUserIds`: only they may
 * be notified (Zulip's maybe_enqueue_notifications_for_message_update).
 */
export async function doQueueMessagePush(tx: Db, env: { realm: RealmRow; config: Config }, message: Pick<MessageRow, "id">, nowMs: number, onlyUserIds?: number[]): Promise<void> {
  if (env.config.pushRelay === null || onlyUserIds?.length === 0) return;
  const fields = onlyUserIds ? { message_id: message.id, user_ids: onlyUserIds } : { message_id: message.id };
  await insertPushRelayJob(tx, { realm_id: env.realm.id, user_id: null, call: "message", fields: JSON.stringify(fields), due_at_ms: nowMs });
}

/**
 * Of these users, those with an event queue that takes message events (Zulip's
 * receiver_is_off_zulip, negated). Asked of the process that holds the queues: the worker may
 * run on a thread of its own (push-thread.ts).
 */
export type QueueHolders = (userIds: number[]) => Promise<ReadonlySet<number>>;

/** What deciding reads besides the database: the settings, and who has an open event queue. */
export type NotifyEnv = { config: Config; usersWithMessageQueues: QueueHolders };

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

/** Each phone owner's standing towards the message. */
async function standings(tx: Db, env: NotifyEnv, realm: RealmRow, message: MessageRow, users: UserRow[], nowSeconds: number): Promise<Map<number, Standing>> {
  const ids = users.map((u) => u.id);
  const [flags, muters, lastActive, withQueues] = await Promise.all([
    flagRowsOfUsers(tx, message.id, ids),
    mutersOf(tx, realm.id, message.sender_id),
    lastActiveTimes(tx, realm.id, ids),
    env.usersWithMessageQueues(ids),
  ]);
  const subs = message.stream_id === null ? null : await subscriptionsOfUsers(tx, realm.id, message.stream_id, ids);
  const policies = message.stream_id === null ? null : await topicPoliciesOfUsers(tx, realm.id, message.stream_id, message.topic, ids);
  const out = new Map<number, Standing>();
  for (const user of users) {
    const sub = subs?.get(user.id);
    const topicPolicy = policies?.get(user.id) ?? VISIBILITY_POLICY.inherit;
    const active = lastActive.get(user.id);
    out.set(user.id, {
      flags: flags.get(user.id) ?? defaultFlagBits(user.id, message),
      direct: message.stream_id === null,
      channelWildcard: message.stream_wildcard_mention === 1,
      settings: pushSettings(user),
      subscription: sub ? { push_notifications: flagOf(sub.push_notifications), wildcard_mentions_notify: flagOf(sub.wildcard_mentions_notify), is_muted: sub.is_muted === 1 } : null,
      topicPolicy,
      mutedSender: muters.includes(user.id),
      idle: !withQueues.has(user.id) || active === undefined || nowSeconds - active > PRESENCE_OFFLINE_THRESHOLD_SECONDS,
    });
  }
  return out;
}

/** The message as its notifications describe it. */
async function pushMessage(tx: Db, realm: RealmRow, siteUrl: string, message: MessageRow, sender: UserRow, members: number[]): Promise<PushMessage> {
  const full = pushText(message.rendered_content, siteUrl);
  const content = truncatePushText(full);
  const host = new URL(siteUrl).host;
  const avatar = new URL(avatarUrl(sender), siteUrl).href;
  let channel: PushMessage["channel"] = null;
  let group: PushMessage["group"] = null;
  if (message.stream_id !== null) {
    const [stream] = await getStreamsByIds(tx, realm.id, [message.stream_id]);
    const topic = message.topic === "" ? realmSettings(realm).realm_empty_topic_display_name : message.topic;
    channel = { id: message.stream_id, name: stream?.name ?? "", topic };
  } else if (members.length >= 3) {
    const people = await usersByIds(tx, realm.id, members);
    group = { ids: [...members].sort((a, b) => a - b), names: people.map((u) => u.full_name) };
  }
  return {
    id: message.id,
    time: message.date_sent,
    content,
    contentTruncated: content !== full,
    sender: { id: sender.id, email: apiEmail(sender, host), fullName: sender.full_name, avatarUrl: avatar },
    channel,
    group,
  };
}

/**
 * The group whose mention notified a user who was not mentioned by name: of the mentioned groups
 * they are in, the smallest (Zulip's choice).
 */
async function mentionedGroups(tx: Db, realmId: number, html: string): Promise<{ personal: Set<number>; groups: Array<{ id: number; name: string; members: Set<number> }> }> {
  const { userIds, groupIds } = mentionsIn(html);
  const rows = groupIds.length === 0 ? [] : await groupsByIds(tx, realmId, groupIds);
  const groups = [];
  for (const row of rows) groups.push({ id: row.id, name: row.name ?? "", members: new Set(await effectiveMemberIds(tx, row.id)) });
  groups.sort((a, b) => a.members.size - b.members.size || a.id - b.id);
  return { personal: userIds, groups };
}

/**
 * The "message" job's work, in its transaction: who is notified of the message (among
 * `onlyUserIds` when given); their relay calls queued, held by the caller until `heldUntilMs`
 * (it makes them itself; another worker takes them only if it dies). Nobody is notified twice
 * of one message. Returns the queued calls.
 */
export async function doNotifyMessage(
  tx: Db,
  env: NotifyEnv,
  realm: RealmRow,
  messageId: number,
  time: { nowMs: number; heldUntilMs: number },
  onlyUserIds?: readonly number[],
): Promise<PushRelayJobRow[]> {
  const { nowMs } = time;
  const message = await getMessage(tx, realm.id, messageId);
  if (!message) return [];
  const members = message.stream_id === null ? ((await directRecipientMembers(tx, [message.recipient_id])).get(message.recipient_id) ?? []) : await subscriberIds(tx, realm.id, message.stream_id);
  const only = onlyUserIds ? new Set(onlyUserIds) : null;
  const candidates = members.filter((id) => id !== message.sender_id && (only === null || only.has(id)));
  const phones = await phonesOfUsers(tx, realm.id, candidates);
  if (phones.size === 0) return [];
  // An edit's job (or a job run again) finds some already notified.
  if (only !== null) for (const id of await usersNotifiedOf(tx, message.id, [...phones.keys()])) phones.delete(id);
  if (phones.size === 0) return [];
  const users = (await usersByIds(tx, realm.id, [...phones.keys(), message.sender_id])).filter((u) => u.is_active === 1);
  const sender = users.find((u) => u.id === message.sender_id);
  const owners = users.filter((u) => u.id !== message.sender_id && u.is_bot === 0);
  if (!sender || owners.length === 0) return [];
  const byUser = await standings(tx, env, realm, message, owners, Math.floor(nowMs / 1000));
  const notified = owners.flatMap((user) => {
    const trigger = pushTrigger(byUser.get(user.id) as Standing);
    return trigger === null ? [] : [{ user, trigger }];
  });
  if (notified.length === 0) return [];
  await insertActiveNotifications(
    tx,
    realm.id,
    message.id,
    notified.map((n) => n.user.id),
  );
  const siteUrl = env.config.externalUrl;
  const pushRealm: PushRealm = { id: realm.id, name: realm.name, siteUrl };
  const described = await pushMessage(tx, realm, siteUrl, message, sender, members);
  // Guests who may not access the sender (only a channel message's can) are told of "Unknown user".
  const hiddenFrom = message.stream_id === null ? new Set<number>() : await idsWithoutAccessTo(tx, realm, sender, notified.map((n) => n.user.id));
  const unknownSender = hiddenFrom.size > 0 ? withUnknownSender(described, new URL(siteUrl).host, unknownUserAvatarUrl(siteUrl)) : described;
  const mentions = notified.some((n) => n.trigger === "mentioned") ? await mentionedGroups(tx, realm.id, message.rendered_content) : null;
  const rows = [];
  for (const { user, trigger } of notified) {
    const group = trigger === "mentioned" && mentions && !mentions.personal.has(user.id) ? mentions.groups.find((g) => g.members.has(user.id)) : undefined;
    const to: PushFor = { userId: user.id, trigger, mentionedGroup: group ? { id: group.id, name: group.name } : null };
    const m = hiddenFrom.has(user.id) ? unknownSender : described;
    const payloads = { apns: legacyApnsMessage(pushRealm, m, to), fcm: legacyFcmMessage(pushRealm, m, to), e2ee: e2eeMessagePayload(pushRealm, m, to) };
    rows.push(...(await notifyCallRows(realm, user, phones.get(user.id) as UserPhones, payloads, "high", time.heldUntilMs)));
  }
  return insertPushRelayJobs(tx, rows);
}

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
import { pushText, truncatePushText } from "../../present/push-content.ts";
import { e2eeMessagePayload, legacyApnsMessage, legacyFcmMessage, withUnknownSender, type PushFor, type PushMessage, type PushRealm } from "../../present/push-payloads.ts";
import { avatarUrl, unknownUserAvatarUrl } from "../../present/users.ts";
import { idsWithoutAccessTo } from "../../permissions/user-access.ts";
import { apiEmail } from "../../model/emails.ts";
import { defaultFlagBits } from "../../store/messages/message-flags.ts";
import { directRecipientMembers, getMessage } from "../../store/messages/messages.ts";
import { insertPushRelayJob, insertPushRelayJobs } from "../../store/push/push.ts";
import type { PushRelayJobRow } from "../../store/schema/push.ts";
import { flagRowsOfUsers, insertActiveNotifications, phoneOwnerIds, phonesOfUsers, usersNotifiedOf, type UserPhones } from "../../store/push/push-notifications.ts";
import { MESSAGE_FLAG, type MessageRow, type RealmRow, type UserRow } from "../../store/schema/database.ts";
import { getStreamsByIds } from "../../store/channels/streams.ts";
import { subscriberIds } from "../../store/channels/subscriptions.ts";
import type { Db } from "../../store/schema/types.ts";
import { usersByIds } from "../../store/users/users.ts";
import type { Config } from "../../config.ts";
import type { DoEnv } from "../context.ts";
import { awayUsers, type QueueHolders } from "./away.ts";
import { mentioningGroup, messageMentions } from "./mentioned-groups.ts";
import { notifyCallRows } from "./notify-calls.ts";
import { notifyFacts, type NotifyFacts, type SentMessage } from "./notify-facts.ts";
import { relayCallQueued } from "./relay-signal.ts";
import { pushTrigger } from "./triggers.ts";

/**
 * Writes the job that notifies `recipientIds` of the message, in the transaction of the send (or
 * of the edit that mentioned them), with the facts of its decision as of now (notify-facts.ts).
 * Nothing when push is off, and no job when none of them has a phone or could be notified: the
 * realm's phone owners come from the read cache, so a send to people without phones costs no
 * statement. `edit`: an edit's newly mentioned users, some of whom may have been notified already
 * (Zulip's maybe_enqueue_notifications_for_message_update).
 */
export async function doQueueMessagePush(
  tx: Db,
  env: Pick<DoEnv, "realm" | "config" | "emit">,
  sent: SentMessage,
  recipientIds: readonly number[],
  nowMs: number,
  edit = false,
): Promise<void> {
  if (env.config.pushRelay === null || recipientIds.length === 0) return;
  const owners = await phoneOwnerIds(tx, env.realm.id);
  if (owners.size === 0) return;
  const candidates = recipientIds.filter((id) => owners.has(id) && id !== sent.message.sender_id);
  if (candidates.length === 0) return;
  const facts = await notifyFacts(tx, sent, candidates, "push");
  if (facts.length === 0) return;
  const fields: MessageJobFields = edit ? { message_id: sent.message.id, recipients: facts, edit: true } : { message_id: sent.message.id, recipients: facts };
  await insertPushRelayJob(tx, { realm_id: env.realm.id, user_id: null, call: "message", fields: JSON.stringify(fields), due_at_ms: nowMs });
  env.emit.afterCommit(relayCallQueued);
}

/** An edit mentioned these users anew: their notifications, decided on their flags as the edit left them. */
export async function doQueueEditPush(tx: Db, env: Pick<DoEnv, "realm" | "config" | "emit">, message: MessageRow, userIds: number[], nowMs: number): Promise<void> {
  if (env.config.pushRelay === null || userIds.length === 0) return;
  const owners = await phoneOwnerIds(tx, env.realm.id);
  const withPhones = userIds.filter((id) => owners.has(id));
  if (withPhones.length === 0) return;
  const flags = await flagRowsOfUsers(tx, message.id, withPhones);
  const sent: SentMessage = { message, flagsOf: (id) => flags.get(id) ?? defaultFlagBits(id, message) };
  await doQueueMessagePush(tx, env, sent, withPhones, nowMs, true);
}

/**
 * A "message" job's fields: the facts recorded with the send. Jobs written before the facts were
 * (only `message_id`, and an edit's `user_ids`) are decided on the state when they run.
 */
type MessageJobFields = { message_id: number; recipients?: NotifyFacts; edit?: true; user_ids?: number[] };

/** What deciding reads besides the database: the settings, and who has an open event queue. */
export type NotifyEnv = { config: Config; usersWithMessageQueues: QueueHolders };

/** A job's recipients and their reasons: as recorded, or (a job from before facts were recorded) decided on the state now. */
async function recordedFacts(tx: Db, realm: RealmRow, message: MessageRow, fields: MessageJobFields): Promise<NotifyFacts> {
  if (fields.recipients) return fields.recipients;
  const members = await messageMembers(tx, realm, message);
  const only = fields.user_ids ? new Set(fields.user_ids) : null;
  const owners = await phoneOwnerIds(tx, realm.id);
  const candidates = members.filter((id) => owners.has(id) && (only === null || only.has(id)));
  const flags = await flagRowsOfUsers(tx, message.id, candidates);
  return notifyFacts(tx, { message, flagsOf: (id) => flags.get(id) ?? defaultFlagBits(id, message) }, candidates, "push");
}

/** Who received the message: a channel's subscribers, or a direct message's members. */
async function messageMembers(tx: Db, realm: RealmRow, message: MessageRow): Promise<number[]> {
  if (message.stream_id !== null) return subscriberIds(tx, realm.id, message.stream_id);
  return (await directRecipientMembers(tx, [message.recipient_id])).get(message.recipient_id) ?? [];
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
 * The "message" job's work, in its transaction: of the recipients the send recorded (`fieldsText`,
 * the job's fields), those who still have a phone, have not read the message and, if at their
 * desk, take notifications there, are notified for their first reason; their relay calls queued,
 * held by the caller until `heldUntilMs` (it makes them itself; another worker takes them only if
 * it dies). Nobody is notified twice of one message. Returns the queued calls.
 */
export async function doNotifyMessage(tx: Db, env: NotifyEnv, realm: RealmRow, fieldsText: string, time: { nowMs: number; heldUntilMs: number }): Promise<PushRelayJobRow[]> {
  const fields = JSON.parse(fieldsText) as MessageJobFields;
  const message = await getMessage(tx, realm.id, Number(fields.message_id));
  if (!message) return [];
  const reasons = new Map(await recordedFacts(tx, realm, message, fields));
  const phones = await phonesOfUsers(tx, realm.id, [...reasons.keys()]);
  if (phones.size === 0) return [];
  // An edit's job (or a job run again) finds some already notified.
  if (fields.edit || fields.user_ids) for (const id of await usersNotifiedOf(tx, message.id, [...phones.keys()])) phones.delete(id);
  const [users, flags] = await Promise.all([usersByIds(tx, realm.id, [...phones.keys(), message.sender_id]), flagRowsOfUsers(tx, message.id, [...phones.keys()])]);
  const sender = users.find((u) => u.id === message.sender_id && u.is_active === 1);
  const owners = users.filter((u) => u.id !== message.sender_id && u.is_active === 1 && ((flags.get(u.id) ?? 0) & MESSAGE_FLAG.read) === 0);
  if (!sender || owners.length === 0) return [];
  const away = await awayUsers(tx, realm.id, env.usersWithMessageQueues, owners.map((u) => u.id), Math.floor(time.nowMs / 1000));
  const notified = owners.flatMap((user) => {
    const trigger = pushTrigger(reasons.get(user.id) ?? 0, away.has(user.id));
    return trigger === null ? [] : [{ user, trigger }];
  });
  if (notified.length === 0) return [];
  await insertActiveNotifications(
    tx,
    realm.id,
    message.id,
    notified.map((n) => n.user.id),
  );
  const members = message.stream_id === null ? await messageMembers(tx, realm, message) : [];
  const siteUrl = env.config.externalUrl;
  const pushRealm: PushRealm = { id: realm.id, name: realm.name, siteUrl };
  const described = await pushMessage(tx, realm, siteUrl, message, sender, members);
  // Guests who may not access the sender (only a channel message's can) are told of "Unknown user".
  const hiddenFrom = message.stream_id === null ? new Set<number>() : await idsWithoutAccessTo(tx, realm, sender, notified.map((n) => n.user.id));
  const unknownSender = hiddenFrom.size > 0 ? withUnknownSender(described, new URL(siteUrl).host, unknownUserAvatarUrl(siteUrl)) : described;
  const mentions = notified.some((n) => n.trigger === "mentioned") ? await messageMentions(tx, realm.id, message.rendered_content) : null;
  const rows = [];
  for (const { user, trigger } of notified) {
    const group = trigger === "mentioned" && mentions ? mentioningGroup(mentions, user.id) : undefined;
    const to: PushFor = { userId: user.id, trigger, mentionedGroup: group ? { id: group.id, name: group.name } : null };
    const m = hiddenFrom.has(user.id) ? unknownSender : described;
    const payloads = { apns: legacyApnsMessage(pushRealm, m, to), fcm: legacyFcmMessage(pushRealm, m, to), e2ee: e2eeMessagePayload(pushRealm, m, to) };
    rows.push(...(await notifyCallRows(realm, user, phones.get(user.id) as UserPhones, payloads, "high", time.heldUntilMs)));
  }
  return insertPushRelayJobs(tx, rows);
}

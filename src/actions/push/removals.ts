/**
 * Taking notifications back from phones (Zulip's do_clear_mobile_push_notifications_for_ids):
 * when a user reads messages they were notified of, or the messages are deleted, their
 * notifications are forgotten and one removal per protocol is queued for the relay (legacy
 * "remove" payloads; an E2EE "remove" sealed per device), at normal priority. Nothing happens
 * when push is off or nobody was notified; a user with no phone left just has the rows dropped.
 */
import { legacyApnsRemove, legacyFcmRemove, e2eeRemovePayload, type PushRealm } from "../../present/push-payloads.ts";
import { insertPushRelayJobs } from "../../store/push/push.ts";
import { phonesOfUsers, takeActiveNotifications, takeActiveNotificationsOfMessages } from "../../store/push/push-notifications.ts";
import type { MessageRow, UserRow } from "../../store/schema/database.ts";
import { subscriptionsOfUsers } from "../../store/channels/subscriptions.ts";
import { userSetting } from "../../model/user-settings.ts";
import type { Db } from "../../store/schema/types.ts";
import { usersByIds } from "../../store/users/users.ts";
import { systemClock } from "../../clock.ts";
import type { DoEnv } from "../context.ts";
import { notifyCallRows } from "./notify-calls.ts";
import { relayCallQueued } from "./relay-signal.ts";

type RemovalEnv = Pick<DoEnv, "realm" | "config" | "emit">;

/** Queues the removals of each user's messages (by user id). */
async function doQueueRemovals(tx: Db, env: RemovalEnv, byUser: ReadonlyMap<number, number[]>): Promise<void> {
  const realm = env.realm;
  const phones = await phonesOfUsers(tx, realm.id, [...byUser.keys()]);
  if (phones.size === 0) return;
  const users = await usersByIds(tx, realm.id, [...phones.keys()]);
  const pushRealm: PushRealm = { id: realm.id, name: realm.name, siteUrl: env.config.externalUrl };
  // Relay calls run on real time, as the worker does, not on a test's manual clock.
  const nowMs = systemClock.nowMs();
  const rows = [];
  for (const user of users) {
    const mine = phones.get(user.id);
    const ids = byUser.get(user.id);
    if (!mine || !ids) continue;
    const payloads = { apns: legacyApnsRemove(pushRealm, user.id, ids), fcm: legacyFcmRemove(pushRealm, user.id, ids), e2ee: e2eeRemovePayload(pushRealm, user.id, ids) };
    rows.push(...(await notifyCallRows(realm, user, mine, payloads, "normal", nowMs)));
  }
  await insertPushRelayJobs(tx, rows);
  if (rows.length > 0) env.emit.afterCommit(relayCallQueued);
}

/** The user read these messages: their notifications of them are taken back. */
export async function doRemoveReadNotifications(tx: Db, env: RemovalEnv, user: Pick<UserRow, "id">, messageIds: number[]): Promise<void> {
  if (env.config.pushRelay === null || messageIds.length === 0) return;
  const taken = await takeActiveNotifications(tx, user.id, messageIds);
  if (taken.length > 0) await doQueueRemovals(tx, env, new Map([[user.id, taken]]));
}

/** These messages are gone (deleted, or the mention edited away for `only` users): everyone's notifications of them are taken back. */
export async function doRemoveMessageNotifications(tx: Db, env: RemovalEnv, messageIds: number[]): Promise<void> {
  if (env.config.pushRelay === null || messageIds.length === 0) return;
  const byUser = await takeActiveNotificationsOfMessages(tx, env.realm.id, messageIds);
  if (byUser.size > 0) await doQueueRemovals(tx, env, byUser);
}

/**
 * An edit took a channel message's mention away from these users: their notifications of it are
 * taken back, except for users who get every message of the channel on their phones (Zulip's
 * do_update_mobile_push_notification). Direct messages keep theirs: the message still is one.
 */
export async function doRemoveUnmentionedNotifications(tx: Db, env: RemovalEnv, message: Pick<MessageRow, "id" | "stream_id">, userIds: number[]): Promise<void> {
  if (env.config.pushRelay === null || message.stream_id === null || userIds.length === 0) return;
  const [users, subs] = await Promise.all([usersByIds(tx, env.realm.id, userIds), subscriptionsOfUsers(tx, env.realm.id, message.stream_id, userIds)]);
  const byUser = new Map<number, number[]>();
  for (const user of users) {
    const sub = subs.get(user.id);
    const channelPush = sub?.push_notifications === null || sub?.push_notifications === undefined ? userSetting(user, "enable_stream_push_notifications") === true : sub.push_notifications === 1;
    if (channelPush) continue;
    const taken = await takeActiveNotifications(tx, user.id, [message.id]);
    if (taken.length > 0) byUser.set(user.id, taken);
  }
  if (byUser.size > 0) await doQueueRemovals(tx, env, byUser);
}

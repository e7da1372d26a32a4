/**
 * Who is away from their desk, as both kinds of message notification decide it (Zulip's idle:
 * receiver_is_off_zulip, or no "active" presence report within the offline threshold): a phone
 * notification reaches a user at their desk only if they asked for that, and a missed-message
 * email only users who are away.
 */
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS } from "../../present/presence.ts";
import { lastActiveTimes } from "../../store/push/push-notifications.ts";
import type { Db } from "../../store/schema/types.ts";

/**
 * Of these users, those with an event queue that takes message events (Zulip's
 * receiver_is_off_zulip, negated). Asked of the process that holds the queues: the push worker
 * may run on a thread of its own (push-thread.ts), and other processes hold queues too.
 */
export type QueueHolders = (userIds: number[]) => Promise<ReadonlySet<number>>;

/**
 * Those of `userIds` away at `nowSeconds` (on the clock presence reports are written with): no
 * event queue open, or no "active" presence report lately.
 */
export async function awayUsers(db: Db, realmId: number, holders: QueueHolders, userIds: number[], nowSeconds: number): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const [lastActive, withQueues] = await Promise.all([lastActiveTimes(db, realmId, userIds), holders(userIds)]);
  return new Set(
    userIds.filter((id) => {
      const active = lastActive.get(id);
      return !withQueues.has(id) || active === undefined || nowSeconds - active > PRESENCE_OFFLINE_THRESHOLD_SECONDS;
    }),
  );
}

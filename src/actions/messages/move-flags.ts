/**
 * Flags of messages moved to another channel. Who received a channel message follows from the
 * subscription periods of its current channel, so after a move receipt is read from the new
 * channel's periods. Upstream instead keeps, deletes or creates UserMessage rows; this module
 * rewrites the sparse flag rows so that every user's effective flags after the move are what
 * upstream shows:
 * - a user who had the message (received it, or held a row) keeps their flags if they are
 *   subscribed to the new channel (or never subscribed to the old one);
 * - such a user not subscribed to the new channel loses their row (they now see the message as
 *   historical, if they can see it at all);
 * - subscribers of a new channel with protected history who did not have the message get it
 *   as read; with shared history they see it as historical (read).
 */
import type { Db } from "../../store/schema/types.ts";
import { replaceFlagRows } from "../../store/messages/flag-writes.ts";
import { defaultFlagBits, flagRowsOfMessages } from "../../store/messages/message-flags.ts";
import { MESSAGE_FLAG, type MessageRow, type StreamRow } from "../../store/schema/database.ts";
import { periodsOverlapping, streamSubscriptionUserIds, type SubscriptionPeriod } from "../../store/channels/subscriptions.ts";
import { userRolesByIds } from "../../store/users/users.ts";
import { isGuest } from "../../permissions/check.ts";

const HISTORICAL = MESSAGE_FLAG.read | MESSAGE_FLAG.historical;

function covers(periods: SubscriptionPeriod[], userId: number, messageId: number): boolean {
  return periods.some((p) => p.user_id === userId && p.first_message_id <= messageId && (p.last_message_id === null || messageId <= p.last_message_id));
}

/** What upstream's UserMessage row for (user, message) holds after the move: its flags, or null for none. */
function upstreamAfter(before: number | null, inNewChannel: boolean, everInOld: boolean, newProtected: boolean): number | null {
  if (before !== null) return inNewChannel || !everInOld ? before : null;
  return inNewChannel && newProtected ? MESSAGE_FLAG.read : null;
}

/** The sparse row that makes our derived flags equal upstream's: null for no row. */
function storedFor(target: number | null, receivedAfter: boolean, defaultBits: number): number | null {
  if (target === null) return receivedAfter ? HISTORICAL : null;
  if (receivedAfter) return target === defaultBits ? null : target;
  return target === HISTORICAL ? null : target;
}

/**
 * Rewrites flag rows for messages moved from `from` to `to` (call after the rows' stream_id
 * changed; `moved` are the rows as they were before). Returns the users who lose access to the
 * messages (Zulip's users_losing_access), who get a delete_message event.
 */
export async function reconcileMovedFlags(db: Db, realmId: number, moved: readonly MessageRow[], from: StreamRow, to: StreamRow): Promise<number[]> {
  const ids = moved.map((m) => m.id);
  const [before, after, everInOld, inNew, rows] = await Promise.all([
    periodsOverlapping(db, from.id, ids),
    periodsOverlapping(db, to.id, ids),
    streamSubscriptionUserIds(db, from.id, false),
    streamSubscriptionUserIds(db, to.id, true),
    flagRowsOfMessages(db, ids),
  ]);
  const stored = new Map(rows.map((r) => [`${r.user_id}:${r.message_id}`, r.flags]));
  const candidates = new Set([...before.map((p) => p.user_id), ...after.map((p) => p.user_id), ...rows.map((r) => r.user_id), ...inNew, ...moved.map((m) => m.sender_id)]);
  const newProtected = to.history_public_to_subscribers === 0;
  const changes: Array<{ user_id: number; message_id: number; flags: number | null }> = [];
  for (const message of moved) {
    const wildcard = message.stream_wildcard_mention === 1 ? MESSAGE_FLAG.stream_wildcard_mentioned : 0;
    for (const userId of candidates) {
      const isSender = message.sender_id === userId;
      const row = stored.get(`${userId}:${message.id}`);
      const receivedBefore = isSender || covers(before, userId, message.id);
      const beforeBits = receivedBefore ? (row ?? defaultFlagBits(userId, message)) | wildcard : (row ?? null);
      const target = upstreamAfter(beforeBits, inNew.has(userId), everInOld.has(userId), newProtected);
      const receivedAfter = isSender || covers(after, userId, message.id);
      const wanted = storedFor(target, receivedAfter, defaultFlagBits(userId, message) | wildcard);
      if (wanted !== (row ?? null)) changes.push({ user_id: userId, message_id: message.id, flags: wanted });
    }
  }
  await replaceFlagRows(db, changes);
  return losingAccess(db, realmId, everInOld, inNew, to);
}

/** Old-channel users (active) who cannot see the messages in the new channel: guests for a public one, else non-subscribers. */
async function losingAccess(db: Db, realmId: number, everInOld: Set<number>, inNew: Set<number>, to: StreamRow): Promise<number[]> {
  const ids = [...everInOld].filter((id) => !inNew.has(id));
  if (ids.length === 0) return [];
  const users = await userRolesByIds(db, realmId, ids, { activeOnly: true });
  return users.filter((u) => to.invite_only === 1 || isGuest(u)).map((u) => u.id);
}

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
import type { Db } from "../../store/types.ts";
import { defaultFlagBits } from "../../store/message-flags.ts";
import { MESSAGE_FLAG, type MessageRow, type StreamRow } from "../../store/schema.ts";
import { isGuest } from "../../permissions/check.ts";

type Period = { user_id: number; first_message_id: number; last_message_id: number | null };

const HISTORICAL = MESSAGE_FLAG.read | MESSAGE_FLAG.historical;

async function periodsOf(db: Db, streamId: number, ids: number[]): Promise<Period[]> {
  return db
    .selectFrom("subscription_periods")
    .select(["user_id", "first_message_id", "last_message_id"])
    .where("stream_id", "=", streamId)
    .where("first_message_id", "<=", Math.max(...ids))
    .where((eb) => eb.or([eb("last_message_id", "is", null), eb("last_message_id", ">=", Math.min(...ids))]))
    .execute();
}

function covers(periods: Period[], userId: number, messageId: number): boolean {
  return periods.some((p) => p.user_id === userId && p.first_message_id <= messageId && (p.last_message_id === null || messageId <= p.last_message_id));
}

async function subscriptionUserIds(db: Db, streamId: number, activeOnly: boolean): Promise<Set<number>> {
  let q = db.selectFrom("subscriptions").select("user_id").where("stream_id", "=", streamId);
  if (activeOnly) q = q.where("active", "=", 1);
  return new Set((await q.execute()).map((r) => r.user_id));
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
    periodsOf(db, from.id, ids),
    periodsOf(db, to.id, ids),
    subscriptionUserIds(db, from.id, false),
    subscriptionUserIds(db, to.id, true),
    db.selectFrom("user_message_flags").select(["user_id", "message_id", "flags"]).where("message_id", "in", ids).execute(),
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
  await writeChanges(db, changes);
  return losingAccess(db, realmId, everInOld, inNew, to);
}

async function writeChanges(db: Db, changes: Array<{ user_id: number; message_id: number; flags: number | null }>): Promise<void> {
  for (const change of changes) {
    await db.deleteFrom("user_message_flags").where("user_id", "=", change.user_id).where("message_id", "=", change.message_id).execute();
  }
  const inserts = changes.flatMap((c) => (c.flags === null ? [] : [{ user_id: c.user_id, message_id: c.message_id, flags: c.flags }]));
  const BATCH_ROWS = 500;
  for (let i = 0; i < inserts.length; i += BATCH_ROWS) await db.insertInto("user_message_flags").values(inserts.slice(i, i + BATCH_ROWS)).execute();
}

/** Old-channel users (active) who cannot see the messages in the new channel: guests for a public one, else non-subscribers. */
async function losingAccess(db: Db, realmId: number, everInOld: Set<number>, inNew: Set<number>, to: StreamRow): Promise<number[]> {
  const ids = [...everInOld].filter((id) => !inNew.has(id));
  if (ids.length === 0) return [];
  const users = await db.selectFrom("users").select(["id", "role"]).where("realm_id", "=", realmId).where("is_active", "=", 1).where("id", "in", ids).execute();
  return users.filter((u) => to.invite_only === 1 || isGuest(u)).map((u) => u.id);
}

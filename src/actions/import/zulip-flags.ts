/**
 * Each user's flags on each message, from Zulip's UserMessage rows. Parley stores flag rows only
 * where they differ from the default (store/messages/message-flags.ts: a received message is
 * unread for its recipients and read for its sender), and decides who received a channel
 * message from subscription periods rather than from a row per recipient. So, per message:
 * - a row Zulip holds becomes a row of the same flags, except a sender's plain "read" (the
 *   default) and the flags Parley has no use for (is_private, push bookkeeping, unused bits);
 *   every unread one is written, flags 0 included, so each user's unread watermark can stand at
 *   the newest message (store/messages/unread-watermarks.ts);
 * - who received a channel message is who holds a row not marked historical
 *   (zulip-received-runs.ts makes the periods of that), and the users Zulip had soft-deactivated
 *   (long_term_idle) while the audit log has them subscribed: upstream writes their rows, unread,
 *   when they come back, and so does this import, now.
 */
import { MESSAGE_FLAG } from "../../store/schema/database.ts";
import { ZULIP_FLAG_BITS, type ZulipFlag } from "../../formats/zulip/flags.ts";
import type { ZulipImportState } from "./zulip-state.ts";

/** Zulip flag -> Parley flag bit (group mentions are mentions here: Parley has no flag of its own for them). */
const FLAG_MAP: ReadonlyArray<[ZulipFlag, number]> = [
  ["read", MESSAGE_FLAG.read],
  ["starred", MESSAGE_FLAG.starred],
  ["collapsed", MESSAGE_FLAG.collapsed],
  ["mentioned", MESSAGE_FLAG.mentioned],
  ["group_mentioned", MESSAGE_FLAG.mentioned],
  ["stream_wildcard_mentioned", MESSAGE_FLAG.stream_wildcard_mentioned],
  ["topic_wildcard_mentioned", MESSAGE_FLAG.topic_wildcard_mentioned],
  ["has_alert_word", MESSAGE_FLAG.has_alert_word],
  ["historical", MESSAGE_FLAG.historical],
];

/** Parley's flag bits for a Zulip flags_mask. */
export function parleyFlags(mask: number): number {
  let bits = 0;
  for (const [zulip, parley] of FLAG_MAP) if ((mask & ZULIP_FLAG_BITS[zulip]) !== 0) bits |= parley;
  return bits;
}

/** A message as flag decisions need it. */
export type FlagMessage = { id: number; senderId: number; sent: number; streamId: number | null; members: readonly number[] | null };

/** A flag row to write. */
export type FlagRow = { user_id: number; message_id: number; flags: number };

/** The users who received a channel message: a UserMessage row not marked historical, or soft-deactivated and subscribed then. */
export function channelReceivers(message: FlagMessage, rows: ReadonlyMap<number, number>, state: ZulipImportState, idle: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (const [userId, mask] of rows) if ((mask & ZULIP_FLAG_BITS.historical) === 0) out.push(userId);
  if (message.streamId !== null) {
    for (const userId of idle) if (!rows.has(userId) && state.history.covers(message.streamId, userId, message.id, message.sent)) out.push(userId);
  }
  return out;
}

/**
 * The flag rows of one message: `rows` are its UserMessage rows (user id -> flags_mask),
 * `receivers` who received it. A receiver without a row (soft-deactivated) gets an unread one.
 */
export function flagRowsOf(message: FlagMessage, rows: ReadonlyMap<number, number>, receivers: readonly number[]): FlagRow[] {
  const out: FlagRow[] = [];
  for (const [userId, mask] of rows) {
    const flags = parleyFlags(mask);
    if (userId === message.senderId && flags === MESSAGE_FLAG.read) continue;
    out.push({ user_id: userId, message_id: message.id, flags });
  }
  for (const userId of receivers) if (!rows.has(userId) && userId !== message.senderId) out.push({ user_id: userId, message_id: message.id, flags: 0 });
  return out;
}

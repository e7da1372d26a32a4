/**
 * Zulip's UserMessage flags as an export's `flags_mask` packs them: one bit per flag, in the
 * order of upstream's UserMessage.ALL_FLAGS (zerver/models/messages.py), bit 0 first.
 */

/** Each flag's bit in flags_mask. */
export const ZULIP_FLAG_BITS = {
  read: 1 << 0,
  starred: 1 << 1,
  collapsed: 1 << 2,
  mentioned: 1 << 3,
  stream_wildcard_mentioned: 1 << 4,
  topic_wildcard_mentioned: 1 << 5,
  group_mentioned: 1 << 6,
  /** Unused upstream since its migration 0486 (features removed). */
  force_expand: 1 << 7,
  force_collapse: 1 << 8,
  has_alert_word: 1 << 9,
  historical: 1 << 10,
  /** Bookkeeping: a direct message (follows from the message itself). */
  is_private: 1 << 11,
  /** Bookkeeping: a phone notification not yet taken back. */
  active_mobile_push_notification: 1 << 12,
} as const;

/** One of Zulip's flag names. */
export type ZulipFlag = keyof typeof ZULIP_FLAG_BITS;

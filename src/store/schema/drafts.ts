/** Table types of drafts and scheduled messages (listed in schema.ts's Database). */
import type { Generated, Selectable } from "kysely";
import type { Flag } from "./database.ts";

/**
 * Users' synchronised drafts (Zulip's Draft). The audience is kept as the API states it: a
 * channel id, or the ids of the direct message's other users; neither for an unaddressed draft.
 */
export interface DraftTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** The channel of a channel draft. */
  stream_id: number | null;
  /** JSON list of user ids of a direct-message draft (the API's `to`). */
  direct_user_ids: string | null;
  topic: string;
  content: string;
  /** UNIX seconds, with a fraction (Zulip keeps microseconds; drafts are ordered by it). */
  last_edit_time: number;
}

/** Zulip's ScheduledMessage delivery types: sent as its sender, or a reminder the Notification Bot sends its owner. */
export const DELIVERY_TYPE = { sendLater: 1, remind: 2 } as const;
export type DeliveryType = (typeof DELIVERY_TYPE)[keyof typeof DELIVERY_TYPE];

/** Messages to be sent later and reminders (Zulip's ScheduledMessage). */
export interface ScheduledMessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  /** The channel's or the direct conversation's recipient row. */
  recipient_id: number;
  stream_id: number | null;
  /** The stored topic ("" for direct messages). */
  topic: string;
  content: string;
  rendered_content: string;
  sending_client: string;
  /** UNIX seconds. */
  scheduled_timestamp: number;
  read_by_sender: Flag;
  has_attachment: Flag;
  /** Set in the transaction that sends it, so two workers never both send one. */
  delivered: Generated<Flag>;
  delivered_message_id: number | null;
  /** The worker tried and could not send it; editing it with a new time clears this. */
  failed: Generated<Flag>;
  failure_message: string | null;
  /** DELIVERY_TYPE: a message sent later, or a reminder. */
  delivery_type: Generated<DeliveryType>;
  /** The message a reminder is about (no reference: it may be deleted meanwhile). */
  reminder_target_message_id: number | null;
  /** What the owner wrote on a reminder, quoted in it. */
  reminder_note: string | null;
}

/** A stored draft. */
export type DraftRow = Selectable<DraftTable>;
/** A stored scheduled message. */
export type ScheduledMessageRow = Selectable<ScheduledMessageTable>;

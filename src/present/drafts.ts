/** API shapes of drafts and scheduled messages, shared by REST answers, the snapshot and events. */
import type { DraftRow, ScheduledMessageRow } from "../store/schema/drafts.ts";

/** A draft (Zulip's Draft.to_dict). */
export type ApiDraft = { id: number; type: "" | "stream" | "private"; to: number[]; topic: string; content: string; timestamp: number };

/** A scheduled message (Zulip's ScheduledMessage.to_dict): `to` is a channel id or user ids. */
export type ApiScheduledMessage = {
  scheduled_message_id: number;
  type: "stream" | "private";
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
};

function directUserIds(text: string | null): number[] {
  if (text === null) return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((id): id is number => typeof id === "number") : [];
}

/** A stored draft as clients see it; the edit time in whole seconds. */
export function presentDraft(row: DraftRow): ApiDraft {
  const timestamp = Math.floor(row.last_edit_time);
  if (row.stream_id !== null) return { id: row.id, type: "stream", to: [row.stream_id], topic: row.topic, content: row.content, timestamp };
  const to = directUserIds(row.direct_user_ids);
  return { id: row.id, type: to.length > 0 ? "private" : "", to, topic: "", content: row.content, timestamp };
}

/**
 * The users a direct message goes to, as Zulip's get_recipient_ids names them: the members other
 * than `selfId`, ascending, or `[selfId]` for a message to oneself.
 */
export function directAudience(memberIds: readonly number[], selfId: number): number[] {
  const others = [...new Set(memberIds)].filter((id) => id !== selfId).sort((a, b) => a - b);
  return others.length > 0 ? others : [selfId];
}

/** A scheduled message; `members` holds the member ids of direct conversations by recipient id. */
export function presentScheduledMessage(row: ScheduledMessageRow, members: ReadonlyMap<number, readonly number[]>): ApiScheduledMessage {
  const common = {
    scheduled_message_id: row.id,
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: row.scheduled_timestamp,
    failed: row.failed === 1,
  };
  if (row.stream_id !== null) return { type: "stream", to: row.stream_id, topic: row.topic, ...common };
  return { type: "private", to: directAudience(members.get(row.recipient_id) ?? [], row.sender_id), ...common };
}

/** A reminder (Zulip's ScheduledMessage.to_dict for delivery type REMIND): always a direct message to its owner. */
export type ApiReminder = {
  reminder_id: number;
  type: "private";
  to: number[];
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
  reminder_target_message_id: number;
};

/** A stored reminder as its owner sees it. */
export function presentReminder(row: ScheduledMessageRow): ApiReminder {
  return {
    reminder_id: row.id,
    type: "private",
    to: [row.sender_id],
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: row.scheduled_timestamp,
    failed: row.failed === 1,
    reminder_target_message_id: row.reminder_target_message_id ?? 0,
  };
}

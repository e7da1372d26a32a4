/** `update_message_flags` events: a user's personal flags on messages changed. */
import type { RawUnreads } from "../../store/lookups/unreads.ts";

/** What a client needs to put a message marked unread back into its unread_msgs (FL 121). */
type UnreadMessageDetail =
  | { type: "private"; user_ids: number[]; mentioned?: true }
  | { type: "stream"; stream_id: number; topic: string; unmuted_stream_msg: boolean; mentioned?: true };

/** A flag added to or removed from some of the recipient's messages. */
export type UpdateMessageFlagsEvent = {
  type: "update_message_flags";
  op: "add" | "remove";
  /** Deprecated name of `op` (FL 32), still sent by Zulip. */
  operation: "add" | "remove";
  flag: string;
  messages: number[];
  all: boolean;
  message_details?: Record<string, UnreadMessageDetail>;
};

/** Flags added to or removed from the recipient's messages; `all` only for the legacy mark-all-read. */
export function updateMessageFlagsEvent(op: "add" | "remove", flag: string, messages: number[], all = false): UpdateMessageFlagsEvent {
  return { type: "update_message_flags", op, operation: op, flag, messages, all };
}

/** Zulip's message_details for messages just marked unread (format_unread_message_details). */
export function unreadMessageDetails(userId: number, raw: RawUnreads): Record<string, UnreadMessageDetail> {
  const out: Record<string, UnreadMessageDetail> = {};
  const mention = (id: number): { mentioned?: true } => (raw.mentions.has(id) ? { mentioned: true } : {});
  for (const [id, other] of raw.pms) out[String(id)] = { type: "private", user_ids: other === userId ? [] : [other], ...mention(id) };
  for (const [id, s] of raw.streams) {
    out[String(id)] = { type: "stream", stream_id: s.stream_id, topic: s.topic, unmuted_stream_msg: raw.unmuted.has(id), ...mention(id) };
  }
  for (const [id, key] of raw.huddles) {
    const others = key.split(",").map(Number).filter((u) => u !== userId);
    out[String(id)] = { type: "private", user_ids: others, ...mention(id) };
  }
  return out;
}

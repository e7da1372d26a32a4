/** `submessage` events: a widget's data (e.g. a poll vote) was attached to a message. */

/** One submessage, sent to everyone who has the message. */
export type SubmessageEvent = {
  type: "submessage";
  msg_type: string;
  message_id: number;
  submessage_id: number;
  sender_id: number;
  content: string;
};

/** A submessage was added to a message. */
export function submessageEvent(row: { id: number; message_id: number; sender_id: number; msg_type: string; content: string }): SubmessageEvent {
  return { type: "submessage", msg_type: row.msg_type, message_id: row.message_id, submessage_id: row.id, sender_id: row.sender_id, content: row.content };
}

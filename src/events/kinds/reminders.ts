/** `reminders` events (FL 399), sent only to the owner's own queues. */
import type { ApiReminder } from "../../present/drafts.ts";

/** Reminders scheduled, or deleted (or sent). */
export type RemindersEvent = { type: "reminders"; op: "add"; reminders: ApiReminder[] } | { type: "reminders"; op: "remove"; reminder_id: number };

/** Reminders were scheduled. */
export function remindersAddEvent(reminders: ApiReminder[]): RemindersEvent {
  return { type: "reminders", op: "add", reminders };
}

/** A reminder was deleted, or sent. */
export function reminderRemoveEvent(id: number): RemindersEvent {
  return { type: "reminders", op: "remove", reminder_id: id };
}

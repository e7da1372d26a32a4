/**
 * Scheduled messages: "Send later" from the compose box (upstream's suggested times, or a custom
 * one at least MIN_DELAY_SECONDS ahead), the user's list of messages waiting to be sent, kept by
 * the server's events, and editing (text, time) or cancelling one. The server's worker sends them.
 */
import { batch, computed, signal } from "@preact/signals";
import { composeApi } from "../api/compose.ts";
import type { ComposeToolsEvent, ScheduledMessage } from "../api/compose-types.ts";
import * as compose from "./compose.ts";
import { refusal } from "./errors.ts";
import { dmTitle, me, setEntry, streamName } from "./store.ts";

/** Upstream's shortest delay for a custom time (5 minutes). */
export const MIN_DELAY_SECONDS = 5 * 60;

/** The user's scheduled messages by id. */
export const scheduledMessages = signal<ReadonlyMap<number, ScheduledMessage>>(new Map());
/** Whether the scheduled messages' list is open. */
export const scheduledOpen = signal(false);
/** The last message scheduled from the compose box (its delivery time), for the confirmation. */
export const lastScheduled = signal<{ id: number; at: number } | null>(null);

/** The scheduled messages, soonest first. */
export const sortedScheduled = computed(() => [...scheduledMessages.value.values()].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp));

/** Where a scheduled message goes, in words ("#general › plans", "Ann Lee, Bo Diaz"). */
export function scheduledRecipient(message: ScheduledMessage): string {
  if (message.type === "stream" && typeof message.to === "number") return `#${streamName(message.to)} › ${message.topic === "" || message.topic === undefined ? "general chat" : message.topic}`;
  const ids = Array.isArray(message.to) ? message.to : [message.to];
  const self = me.value?.user_id;
  const others = ids.filter((id) => id !== self);
  return others.length > 0 ? dmTitle(others) : "You";
}

/** A suggested delivery time: its label and UNIX seconds. */
export type SendLaterChoice = { label: string; at: number };

function at(day: Date, addDays: number, hour: number): Date {
  return new Date(day.getFullYear(), day.getMonth(), day.getDate() + addDays, hour, 0, 0, 0);
}

/**
 * Upstream's suggestions: today at 9 AM and 4 PM while they are far enough ahead, tomorrow at
 * both, and next Monday at 9 AM when that is not tomorrow. Labels in the user's 12/24-hour form.
 */
export function sendLaterChoices(now: Date, twentyFourHour: boolean): SendLaterChoice[] {
  const time = (d: Date) => d.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit", hour12: !twentyFourHour });
  const soonest = now.getTime() + MIN_DELAY_SECONDS * 1000;
  const choices: Array<[string, Date]> = [];
  for (const hour of [9, 16]) if (at(now, 0, hour).getTime() >= soonest) choices.push(["Today", at(now, 0, hour)]);
  for (const hour of [9, 16]) choices.push(["Tomorrow", at(now, 1, hour)]);
  const toMonday = (8 - now.getDay()) % 7 || 7;
  if (toMonday !== 1) choices.push(["Monday", at(now, toMonday, 9)]);
  return choices.map(([day, when]) => ({ label: `${day} at ${time(when)}`, at: Math.floor(when.getTime() / 1000) }));
}

/** Why a chosen time cannot be used (null: it can). */
export function timeProblem(seconds: number, nowMs = Date.now()): string | null {
  if (!Number.isFinite(seconds)) return "Choose a date and time.";
  if (seconds * 1000 < nowMs + MIN_DELAY_SECONDS * 1000) return "Choose a time at least 5 minutes from now.";
  return null;
}

/** Schedules the compose box's message for `seconds`; the box is emptied as by a send. Rejects with the reason. */
export async function scheduleCompose(seconds: number): Promise<void> {
  if (compose.content.value.trim() === "") throw refusal("Write a message to schedule.");
  const message = compose.outgoing();
  if ("error" in message) throw refusal(message.error);
  const problem = timeProblem(seconds);
  if (problem !== null) throw refusal(problem);
  const res = await composeApi.schedule({ ...message, scheduled_delivery_timestamp: seconds });
  batch(() => {
    lastScheduled.value = { id: res.scheduled_message_id, at: seconds };
    compose.content.value = "";
    compose.sendError.value = null;
  });
}

/** Changes a scheduled message's text and/or delivery time (neither given: nothing to do). */
export async function editScheduled(id: number, change: { content?: string; seconds?: number }): Promise<void> {
  if (change.content === undefined && change.seconds === undefined) return;
  if (change.seconds !== undefined) {
    const problem = timeProblem(change.seconds);
    if (problem !== null) throw refusal(problem);
  }
  if (change.content !== undefined && change.content.trim() === "") throw refusal("The message cannot be empty.");
  await composeApi.editScheduled(id, { content: change.content, scheduled_delivery_timestamp: change.seconds });
}

/** Cancels a scheduled message (the server's event removes it from the list). */
export async function cancelScheduled(id: number): Promise<void> {
  await composeApi.deleteScheduled(id);
  setEntry(scheduledMessages, id, undefined);
}

/** Opens or closes the list. */
export function showScheduled(open: boolean): void {
  scheduledOpen.value = open;
}

/** The snapshot's scheduled messages. */
export function loadScheduled(list: readonly ScheduledMessage[] | undefined): void {
  scheduledMessages.value = new Map((list ?? []).map((m) => [m.scheduled_message_id, m]));
}

/** The server's events: scheduled, edited (or failed), sent or cancelled. */
export function applyScheduledEvent(event: Extract<ComposeToolsEvent, { type: "scheduled_messages" }>): void {
  if (event.op === "add") for (const m of event.scheduled_messages) setEntry(scheduledMessages, m.scheduled_message_id, m);
  else if (event.op === "update") setEntry(scheduledMessages, event.scheduled_message.scheduled_message_id, event.scheduled_message);
  else {
    setEntry(scheduledMessages, event.scheduled_message_id, undefined);
    if (lastScheduled.value?.id === event.scheduled_message_id) lastScheduled.value = null;
  }
}

/**
 * Users' statuses (emoji and text, as Zulip's user_status): every user's from the register
 * snapshot, kept current by `user_status` events; the user's own set and cleared with POST
 * /users/me/status (the change comes back as an event, for every tab), with upstream's presets.
 * Invisible mode is the presence_enabled setting (PATCH /settings): off, others see the user
 * offline (state/presence.ts).
 */
import { signal } from "@preact/signals";
import { peopleApi, type UserStatus } from "../api/people.ts";
import type { RegisterResponse } from "../api/types.ts";
import { saveSetting } from "./settings.ts";
import { settings } from "./store.ts";

/** A status as the app shows it: its text and its emoji, either may be missing. */
export type ShownStatus = { text: string; emoji: StatusEmoji | null };

/** A status emoji, as reactions name emoji. */
export type StatusEmoji = { emoji_name: string; emoji_code: string; reaction_type: string };

/** Statuses by user id (users with nothing set are left out). */
export const userStatuses = signal<ReadonlyMap<number, ShownStatus>>(new Map());

/** The statuses upstream offers to pick in one click (names as this server's emoji data has them). */
export const STATUS_PRESETS: ReadonlyArray<ShownStatus & { emoji: StatusEmoji }> = [
  { text: "Busy", emoji: { emoji_name: "hammer_and_wrench", emoji_code: "1f6e0", reaction_type: "unicode_emoji" } },
  { text: "In a meeting", emoji: { emoji_name: "date", emoji_code: "1f4c5", reaction_type: "unicode_emoji" } },
  { text: "Commuting", emoji: { emoji_name: "bus", emoji_code: "1f68c", reaction_type: "unicode_emoji" } },
  { text: "Out sick", emoji: { emoji_name: "face_with_head_bandage", emoji_code: "1f915", reaction_type: "unicode_emoji" } },
  { text: "Vacationing", emoji: { emoji_name: "palm_tree", emoji_code: "1f334", reaction_type: "unicode_emoji" } },
  { text: "Working remotely", emoji: { emoji_name: "house", emoji_code: "1f3e0", reaction_type: "unicode_emoji" } },
  { text: "At the office", emoji: { emoji_name: "office", emoji_code: "1f3e2", reaction_type: "unicode_emoji" } },
];

/** Applies the keys a status (or a change of it) carries over `old`; null when nothing is left. */
function withChange(old: ShownStatus | undefined, change: UserStatus): ShownStatus | null {
  const text = change.status_text ?? old?.text ?? "";
  let emoji = old?.emoji ?? null;
  if (change.emoji_name !== undefined) {
    emoji = change.emoji_name === "" ? null : { emoji_name: change.emoji_name, emoji_code: change.emoji_code ?? "", reaction_type: change.reaction_type ?? "unicode_emoji" };
  }
  return text === "" && emoji === null ? null : { text, emoji };
}

/** Takes every status from a register snapshot. */
export function loadStatuses(state: RegisterResponse): void {
  const next = new Map<number, ShownStatus>();
  for (const [id, status] of Object.entries(state.user_status ?? {})) {
    const shown = withChange(undefined, status);
    if (shown !== null) next.set(Number(id), shown);
  }
  userStatuses.value = next;
}

/** A `user_status` event: the keys it names changed. */
export function applyUserStatus(userId: number, change: UserStatus): void {
  const next = new Map(userStatuses.value);
  const shown = withChange(next.get(userId), change);
  if (shown === null) next.delete(userId);
  else next.set(userId, shown);
  userStatuses.value = next;
}

/** A user's status, if they set one. */
export function statusOf(userId: number): ShownStatus | undefined {
  return userStatuses.value.get(userId);
}

/** Sets the user's own status (text, and emoji or none); rejects with the server's error. */
export async function setOwnStatus(text: string, emoji: StatusEmoji | null): Promise<void> {
  await peopleApi.setStatus({ status_text: text.trim(), ...(emoji ?? { emoji_name: "" }) });
}

/** Clears the user's own status. */
export async function clearOwnStatus(): Promise<void> {
  await peopleApi.setStatus({ status_text: "", emoji_name: "" });
}

/** Whether the user is in invisible mode (presence_enabled off). */
export function isInvisible(): boolean {
  return settings.value.presence_enabled === false;
}

/** Turns invisible mode on or off; rejects with the server's error. */
export async function setInvisible(on: boolean): Promise<void> {
  await saveSetting("presence_enabled", !on);
}

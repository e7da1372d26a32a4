/**
 * The app's data, as signals: the signed-in user, the organization's users, the subscriptions,
 * recent direct conversations and settings. Filled from the register snapshot (`loadSnapshot`)
 * and kept current by events (state/events.ts). Views read these; only state/ writes them.
 */
import { computed, signal } from "@preact/signals";
import type { Channel, RegisterResponse, SessionUser, Subscription, User, UserSettings } from "../api/types.ts";

/** Where the app is: asking the server, showing the login page, or running. */
export type Phase = "loading" | "login" | "ready";

export const phase = signal<Phase>("loading");
/** The signed-in user (null when signed out). */
export const me = signal<SessionUser | null>(null);
/** Whether the event queue reaches the server. */
export const connected = signal(true);
export const realmName = signal("");
export const users = signal<ReadonlyMap<number, User>>(new Map());
export const subscriptions = signal<ReadonlyMap<number, Subscription>>(new Map());
/** Every channel the user can see, subscribed or not (archived ones included, flagged). */
export const channels = signal<ReadonlyMap<number, Channel>>(new Map());
/** Direct conversations by key ("3,7"), with their latest message id. */
export const recentDms = signal<ReadonlyMap<string, { userIds: number[]; maxId: number }>>(new Map());
export const settings = signal<UserSettings>({ enter_sends: false, color_scheme: 1, twenty_four_hour_time: false });
/** The snapshot's organization settings (its `realm_*` keys, and the server limits such as max_file_upload_size_mib). */
export const realmSettings = signal<Readonly<Record<string, unknown>>>({});
/** Topics of each channel whose topic list was fetched (newest first). */
export const topics = signal<ReadonlyMap<number, ReadonlyArray<{ name: string; max_id: number }>>>(new Map());

/** Subscribed channels, pinned first, then by name. */
export const sortedSubscriptions = computed(() =>
  [...subscriptions.value.values()]
    .filter((s) => !s.is_archived)
    .sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name)),
);

/** Recent direct conversations, newest first. */
export const sortedDms = computed(() => [...recentDms.value.values()].sort((a, b) => b.maxId - a.maxId));

/** A user's name ("Unknown user" for ids the snapshot does not list). */
export function userName(id: number): string {
  return users.value.get(id)?.full_name ?? "Unknown user";
}

/** A channel's name ("unknown channel" for a channel the user cannot see). */
export function streamName(id: number): string {
  return subscriptions.value.get(id)?.name ?? channels.value.get(id)?.name ?? "unknown channel";
}

/** The names of a direct conversation's other participants. */
export function dmTitle(userIds: readonly number[]): string {
  return userIds.map(userName).join(", ");
}

/** Replaces the data with a register snapshot. */
export function loadSnapshot(state: RegisterResponse): void {
  realmName.value = state.realm_name;
  users.value = new Map(state.realm_users.map((u) => [u.user_id, u]));
  subscriptions.value = new Map(state.subscriptions.map((s) => [s.stream_id, s]));
  channels.value = new Map([...(state.streams ?? []), ...state.subscriptions].map((s) => [s.stream_id, s]));
  const dms = new Map<string, { userIds: number[]; maxId: number }>();
  for (const c of state.recent_private_conversations) {
    const userIds = c.user_ids.length > 0 ? [...c.user_ids].sort((a, b) => a - b) : [state.user_id];
    dms.set(userIds.join(","), { userIds, maxId: c.max_message_id });
  }
  recentDms.value = dms;
  settings.value = { ...settings.value, ...state.user_settings };
  topics.value = new Map();
  realmSettings.value = Object.fromEntries(Object.entries(state).filter(([key]) => key.startsWith("realm_") || key.startsWith("max_")));
}

/** A `realm` event's changed settings, kept under their snapshot names (`realm_<name>`). */
export function applyRealmSettings(changes: Readonly<Record<string, unknown>>): void {
  realmSettings.value = { ...realmSettings.value, ...Object.fromEntries(Object.entries(changes).map(([key, value]) => [`realm_${key}`, value])) };
}

/** Sets a map signal's entry (a new map, so readers update). */
export function setEntry<K, V>(sig: { value: ReadonlyMap<K, V> }, key: K, value: V | undefined): void {
  const next = new Map(sig.value);
  if (value === undefined) next.delete(key);
  else next.set(key, value);
  sig.value = next;
}

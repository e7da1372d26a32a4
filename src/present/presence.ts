/**
 * Presence rows -> the API's two presence formats (modern: two timestamps; legacy: a status and
 * a timestamp per "client"), and the server's presence timing, which the formats, the ping
 * handling and the register keys share. Pure.
 */
import type { UserPresenceRow } from "../store/schema/presence.ts";

/**
 * How often clients ping (Zulip's PRESENCE_PING_INTERVAL_SECS; the register key
 * server_presence_ping_interval_seconds). Candidate env var: PRESENCE_PING_INTERVAL_SECONDS.
 */
export const PRESENCE_PING_INTERVAL_SECONDS = 60;

/**
 * How old a report may be before its user shows offline (OFFLINE_THRESHOLD_SECS; the register key
 * server_presence_offline_threshold_seconds). Candidate env var: PRESENCE_OFFLINE_THRESHOLD_SECONDS.
 */
export const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 140;

/**
 * A stored time is rewritten only by a report at least this much newer, so several open clients
 * of one user do not write on every ping (PRESENCE_UPDATE_MIN_FREQ_SECONDS).
 */
export const PRESENCE_UPDATE_MIN_FREQ_SECONDS = 55;

/** The legacy formats call a user active when last active within this of the last connection (PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS). */
const LEGACY_ACTIVE_OFFSET_SECONDS = 70;

/** How far back presence data goes when a client does not say (SPEC.md: 14 days). */
export const PRESENCE_HISTORY_DEFAULT_DAYS = 14;

/** A user's presence in the modern format. */
export type ModernPresence = { active_timestamp: number; idle_timestamp: number };

/** A user's presence on its one "client" in the legacy format (FL 178: always "website"). */
export type LegacyPresenceEntry = { client: "website"; status: "active" | "idle"; timestamp: number; pushable: false };

/** A user's legacy presence: the `aggregated` summary and the `website` entry, identical but for `pushable`. */
export type LegacyUserPresence = { aggregated: Omit<LegacyPresenceEntry, "pushable">; website: LegacyPresenceEntry };

/** The legacy single-user answer (GET /users/{id}/presence): status and timestamp, `aggregated` possibly "offline". */
export type SingleUserPresence = Record<"aggregated" | "website", { status: "active" | "idle" | "offline"; timestamp: number }>;

/** A row's times, a missing last-active time taken as the user's join date (as Zulip's API always sends a time). */
type PresenceTimes = { active: number; connected: number };

/** The times a presence row shows for a user who joined at `dateJoined`. */
export function presenceTimes(row: Pick<UserPresenceRow, "last_active_time" | "last_connected_time">, dateJoined: number): PresenceTimes {
  return { active: row.last_active_time ?? dateJoined, connected: row.last_connected_time };
}

/** The modern format: when last active, and when last connected at all. */
export function modernPresence(t: PresenceTimes): ModernPresence {
  return { active_timestamp: t.active, idle_timestamp: t.connected };
}

/** The legacy entry: active (with the last active time) unless the last connection came well after it. */
export function legacyPresenceEntry(t: PresenceTimes): LegacyPresenceEntry {
  const active = t.active + LEGACY_ACTIVE_OFFSET_SECONDS >= t.connected;
  return { client: "website", status: active ? "active" : "idle", timestamp: active ? t.active : t.connected, pushable: false };
}

/** The legacy format of a user's presence in realm-wide answers. */
export function legacyUserPresence(t: PresenceTimes): LegacyUserPresence {
  const entry = legacyPresenceEntry(t);
  return { aggregated: { client: entry.client, status: entry.status, timestamp: entry.timestamp }, website: entry };
}

/** The legacy answer for one user: without client names, `aggregated` offline once past the threshold at `now`. */
export function singleUserPresence(t: PresenceTimes, now: number): SingleUserPresence {
  const { status, timestamp } = legacyPresenceEntry(t);
  const offline = now - timestamp > PRESENCE_OFFLINE_THRESHOLD_SECONDS;
  return { aggregated: { status: offline ? "offline" : status, timestamp }, website: { status, timestamp } };
}

/**
 * Presence, as Zulip's web app keeps it: the tab reports the user (POST /users/me/presence,
 * "active" while the page is visible and focused, else "idle") every ping interval, and each
 * user's status is derived from their last active and last connected times (the register
 * snapshot, the report's answer and `presence` events), against the server's clock.
 */
import { computed, signal } from "@preact/signals";
import { api } from "../api/client.ts";
import type { PresenceResponse, PresenceTimes, RegisterResponse } from "../api/types.ts";
import { me, settings } from "./store.ts";

/** A user's shown status. */
export type PresenceStatus = "active" | "idle" | "offline";

/** Zulip's defaults, used when the snapshot does not say (seconds). */
const DEFAULT_PING_INTERVAL_S = 60;
const DEFAULT_OFFLINE_THRESHOLD_S = 140;

const times = signal<ReadonlyMap<number, PresenceTimes>>(new Map());
/** The current time in seconds on the server's clock, moved on at each report. */
const now = signal(Date.now() / 1000);
/** Server clock minus the browser's, in seconds. */
let skewS = 0;
let pingIntervalS = DEFAULT_PING_INTERVAL_S;
let offlineThresholdS = DEFAULT_OFFLINE_THRESHOLD_S;

function serverNow(): number {
  return Date.now() / 1000 + skewS;
}

/**
 * Takes the server's times: each update is the server's current word on the users it names (a
 * user turning invisible comes with older times), `replace` drops everyone else (a full answer).
 */
function merge(update: Record<string, PresenceTimes> | undefined, replace = false): void {
  if (update === undefined) return;
  const next = new Map(replace ? [] : times.value);
  for (const [id, t] of Object.entries(update)) next.set(Number(id), t);
  times.value = next;
}

/** Takes the snapshot's presences and timing rules. */
export function loadPresences(state: RegisterResponse): void {
  if (state.server_timestamp !== undefined) skewS = state.server_timestamp - Date.now() / 1000;
  pingIntervalS = state.server_presence_ping_interval_seconds ?? DEFAULT_PING_INTERVAL_S;
  offlineThresholdS = state.server_presence_offline_threshold_seconds ?? DEFAULT_OFFLINE_THRESHOLD_S;
  merge(state.presences ?? {}, true);
  now.value = serverNow();
}

/** A `presence` event (simplified_presence_events: keyed by user id). */
export function applyPresence(presences: Record<string, PresenceTimes>): void {
  merge(presences);
  now.value = serverNow();
}

/** Every user's status, recomputed as reports and events arrive. */
export const statuses = computed(() => {
  const out = new Map<number, PresenceStatus>();
  const at = now.value;
  for (const [id, t] of times.value) {
    if (at - t.active_timestamp < offlineThresholdS) out.set(id, "active");
    else if (at - t.idle_timestamp < offlineThresholdS) out.set(id, "idle");
  }
  return out;
});

/** A user's status ("offline" when nothing recent is known); the user sees themselves offline in invisible mode, as upstream. */
export function presenceOf(userId: number): PresenceStatus {
  if (userId === me.value?.user_id && settings.value.presence_enabled === false) return "offline";
  return statuses.value.get(userId) ?? "offline";
}

/** Whether the user is at this tab now (Zulip reports "active" on recent input, "idle" otherwise). */
function activeHere(): boolean {
  return document.visibilityState === "visible" && document.hasFocus();
}

async function report(newUserInput: boolean): Promise<void> {
  try {
    const res: PresenceResponse = await api.presence(activeHere() ? "active" : "idle", newUserInput);
    if (res.server_timestamp !== undefined) skewS = res.server_timestamp - Date.now() / 1000;
    merge(res.presences, true);
  } catch {
    // Offline or signed out: the event queue shows it; the next report tries again.
  }
  now.value = serverNow();
}

/** Reports presence now and every ping interval (and at once when the tab comes back); returns the stop function. */
export function startPresence(): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const tick = (input: boolean) => {
    if (stopped) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => tick(false), pingIntervalS * 1000);
    void report(input);
  };
  const onFocus = () => tick(true);
  window.addEventListener("focus", onFocus);
  tick(true);
  return () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    window.removeEventListener("focus", onFocus);
  };
}

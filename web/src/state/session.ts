/**
 * The app's life: ask the server whether a session exists, sign in and out, and run the tab's
 * event queue, resynchronising everything from each new snapshot.
 */
import { batch } from "@preact/signals";
import { api } from "../api/client.ts";
import { EventQueue } from "../api/event-queue.ts";
import type { RegisterResponse } from "../api/types.ts";
import { emailSending, loadRealm } from "./admin.ts";
import { loadChannelRights } from "./channels.ts";
import { applyEvents } from "./events.ts";
import * as feed from "./feed.ts";
import { loadMuting } from "./muting.ts";
import { refreshPermission, watchPermission } from "./notifications.ts";
import { parseHash } from "./narrow.ts";
import { clearNetworkError, forget as forgetCompose } from "./compose.ts";
import { COMPOSE_TOOLS_EVENT_TYPES, forgetComposeTools, loadComposeTools } from "./compose-tools.ts";
import { closeSettings } from "./settings.ts";
import { connected, loadSnapshot, me, phase } from "./store.ts";
import { loadUnreads } from "./unread.ts";
import { loadPresences, startPresence } from "./presence.ts";
import { resetRecent } from "./recent.ts";
import { loadProfileFields } from "./profile.ts";
import { loadStatuses } from "./user-status.ts";
import { clearTypists, loadTypingTimes } from "./typing.ts";

/** The event types the app handles; the snapshot carries the matching keys. */
const EVENT_TYPES = [
  "message", "update_message", "delete_message", "update_message_flags", "reaction", "subscription",
  "realm_user", "user_settings", "recent_private_conversations", "realm", "stream", "heartbeat", "restart",
  "typing", "presence", "default_streams", "user_topic", "muted_users", ...COMPOSE_TOOLS_EVENT_TYPES,
  "user_status", "custom_profile_fields",
  // The administrators' export screen (the server sends it to administrators only).
  "realm_export",
];

let queue: EventQueue | null = null;
/** Stops the tab's presence reports (while signed in). */
let stopPresence: (() => void) | null = null;

function onSnapshot(state: RegisterResponse): void {
  const user = me.value;
  if (user === null) return;
  batch(() => {
    loadSnapshot(state);
    loadRealm(state);
    loadChannelRights(state);
    loadMuting(state);
    refreshPermission();
    loadUnreads(state.unread_msgs, user.user_id);
    loadPresences(state);
    loadStatuses(state);
    loadProfileFields(state);
    loadTypingTimes(state);
    loadComposeTools(state, user.user_id);
    clearTypists();
    resetRecent();
    phase.value = "ready";
  });
  // After a reconnect the loaded messages may be stale: load the narrow afresh.
  void feed.showNarrow(parseHash(location.hash, user.user_id), true);
}

/** The queue's reports of the connection; back online, what failed for want of it is tried again. */
function onConnected(ok: boolean): void {
  const back = ok && !connected.value;
  connected.value = ok;
  if (back) {
    feed.reloadIfFailed();
    clearNetworkError();
  }
}

function startQueue(): void {
  queue?.stop();
  queue = new EventQueue(
    { event_types: EVENT_TYPES, apply_markdown: true, client_gravatar: false, slim_presence: true, client_capabilities: { notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: false, empty_topic_name: true, user_settings_object: true, stream_typing_notifications: true, simplified_presence_events: true } },
    { snapshot: onSnapshot, events: applyEvents, connected: onConnected, signedOut: showLogin },
  );
  queue.start();
  watchPermission();
  stopPresence?.();
  stopPresence = startPresence();
}

function showLogin(): void {
  queue?.stop();
  queue = null;
  stopPresence?.();
  stopPresence = null;
  batch(() => {
    closeSettings();
    me.value = null;
    forgetCompose();
    forgetComposeTools();
    phase.value = "login";
  });
}

/** Starts the app: the event queue when signed in, else the login page. */
export async function boot(): Promise<void> {
  try {
    const session = await api.session();
    emailSending.value = session.email_sending === true;
    if (session.user === null) return showLogin();
    me.value = session.user;
    startQueue();
  } catch {
    showLogin();
  }
}

/** Signs in; rejects with the server's ApiError (wrong password, rate limit). */
export async function login(email: string, password: string): Promise<void> {
  const session = await api.login(email, password);
  // Older answers may omit the user: ask for the session.
  const user = session.user ?? (await api.session()).user;
  if (user === null) throw new Error("The server did not start a session.");
  batch(() => {
    me.value = user;
    phase.value = "loading";
  });
  startQueue();
}

/** Signs out and shows the login page. */
export async function logout(): Promise<void> {
  queue?.stop();
  queue = null;
  try {
    await api.logout();
  } finally {
    showLogin();
  }
}

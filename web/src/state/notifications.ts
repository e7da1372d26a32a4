/**
 * Notifications while the tab is open, decided as Zulip's web app decides them
 * (message_notifications.ts): a desktop notification (the browser's Notification API, once the
 * user granted it) and a sound.
 *
 * A message may notify unless it is the user's own, already read (messages from muted users
 * arrive read), from a muted user, or in a muted topic; a direct mention (personal or group)
 * passes any muting, a followed topic passes its channel's muting, and in a muted channel a
 * wildcard mention passes only when the channel's own wildcard_mentions_notify is on. Then,
 * for each of desktop and sound: a channel message notifies when the channel asks for it (the
 * subscription's desktop_notifications / audible_notifications, else the global
 * enable_stream_desktop_notifications / enable_stream_audible_notifications); a followed
 * topic's when enable_followed_topic_desktop_notifications / _audible_notifications is on;
 * and, with enable_desktop_notifications / enable_sounds on, a direct message, a mention, an
 * alert word, or a wildcard mention by wildcard_mentions_notify (the channel's own first) or,
 * in a followed topic, enable_followed_topic_wildcard_mentions_notify. Nothing for a message
 * being read in the focused tab; a direct message's text only with
 * pm_content_in_desktop_notifications. The permission is asked on a user's click (the settings
 * screen, NotificationBanner.tsx).
 */
import { signal } from "@preact/signals";
import type { Message } from "../api/types.ts";
import { channelMuted, isFollowed, isUserMuted, topicPolicy, VISIBILITY } from "./muting.ts";
import { matches, narrowHash, type Narrow } from "./narrow.ts";
import { settings, streamName, subscriptions } from "./store.ts";

/** The browser's answer about notifications: "unsupported" where there is no Notification API. */
export type Permission = NotificationPermission | "unsupported";

function currentPermission(): Permission {
  return "Notification" in window ? Notification.permission : "unsupported";
}

/** Whether this site may show notifications, as the browser says now. */
export const permission = signal<Permission>(currentPermission());

/** Reads the browser's notification permission again (a new snapshot: the user may have changed it meanwhile). */
export function refreshPermission(): void {
  permission.value = currentPermission();
}

let watching = false;

/** Follows the user's changes to the permission in the browser's site settings, where the browser reports them. */
export function watchPermission(): void {
  if (watching) return;
  watching = true;
  void navigator.permissions
    ?.query({ name: "notifications" })
    .then((status) => status.addEventListener("change", refreshPermission))
    .catch(() => undefined);
}

/** Asks the browser for permission to notify (it asks the user once, on a user's gesture); resolves to the answer. */
export async function askPermission(): Promise<Permission> {
  if (currentPermission() === "default") await Notification.requestPermission();
  permission.value = currentPermission();
  return permission.value;
}

/** Whether any of the user's settings asks for desktop notifications (so the browser's permission is worth asking for). */
export function wantsDesktop(): boolean {
  const s = settings.value;
  if (s.enable_desktop_notifications !== false || s.enable_stream_desktop_notifications === true || s.enable_followed_topic_desktop_notifications !== false) return true;
  return [...subscriptions.value.values()].some((sub) => sub.desktop_notifications === true);
}

const NEVER_ASK_KEY = "parley.notifications.never-ask";

function storedNeverAsk(): boolean {
  try {
    return localStorage.getItem(NEVER_ASK_KEY) === "1";
  } catch {
    return false;
  }
}

/** Whether the user said not to be offered desktop notifications on this computer. */
export const neverAsk = signal(storedNeverAsk());

/** Remembers, on this computer, not to offer desktop notifications again. */
export function stopAsking(): void {
  neverAsk.value = true;
  try {
    localStorage.setItem(NEVER_ASK_KEY, "1");
  } catch {
    // Storage refused: not asked again in this tab only.
  }
}

type Kind = "desktop" | "audible";

/** Whether the message's channel asks for every message (the subscription's override, else the global setting). */
function channelAsks(message: Message, kind: Kind): boolean {
  const sub = message.stream_id === undefined ? undefined : subscriptions.value.get(message.stream_id);
  if (sub === undefined) return false;
  const own = kind === "desktop" ? sub.desktop_notifications : sub.audible_notifications;
  if (own !== null && own !== undefined) return own;
  return (kind === "desktop" ? settings.value.enable_stream_desktop_notifications : settings.value.enable_stream_audible_notifications) === true;
}

/** Whether wildcard mentions notify in the message's channel (its own setting, else the global one). */
function wildcardsNotify(message: Message): boolean {
  const own = message.stream_id === undefined ? undefined : subscriptions.value.get(message.stream_id)?.wildcard_mentions_notify;
  return own !== null && own !== undefined ? own : settings.value.wildcard_mentions_notify !== false;
}

const wildcard = (m: Message) => m.flags.includes("stream_wildcard_mentioned") || m.flags.includes("topic_wildcard_mentioned");
const followed = (m: Message) => m.type === "stream" && m.stream_id !== undefined && isFollowed(m.stream_id, m.subject);

/** Whether anything about the message rules a notification out, whatever the settings. */
function notifiable(message: Message, myId: number): boolean {
  if (message.sender_id === myId || message.flags.includes("read") || isUserMuted(message.sender_id)) return false;
  if (message.flags.includes("mentioned") || message.type !== "stream" || message.stream_id === undefined) return true;
  if (followed(message)) return true;
  const policy = topicPolicy(message.stream_id, message.subject);
  if (policy === VISIBILITY.muted) return false;
  if (channelMuted(message.stream_id) && policy !== VISIBILITY.unmuted) {
    return wildcard(message) && subscriptions.value.get(message.stream_id)?.wildcard_mentions_notify === true;
  }
  return true;
}

/** Whether the user's settings ask for a desktop notification, or a sound, of the message. */
function wanted(message: Message, kind: Kind): boolean {
  const s = settings.value;
  if (kind === "audible" && s.notification_sound === "none") return false;
  const stream = message.type === "stream";
  if (stream && channelAsks(message, kind)) return true;
  const followedOn = kind === "desktop" ? s.enable_followed_topic_desktop_notifications : s.enable_followed_topic_audible_notifications;
  if (stream && followed(message) && followedOn !== false) return true;
  if ((kind === "desktop" ? s.enable_desktop_notifications : s.enable_sounds) === false) return false;
  if (!stream || message.flags.includes("mentioned") || message.flags.includes("has_alert_word")) return true;
  if (!wildcard(message)) return false;
  return wildcardsNotify(message) || (followed(message) && s.enable_followed_topic_wildcard_mentions_notify !== false);
}

function where(message: Message, myId: number): Narrow {
  if (message.type === "stream" && message.stream_id !== undefined) return { kind: "topic", streamId: message.stream_id, topic: message.subject };
  const others = typeof message.display_recipient === "string" ? [] : message.display_recipient.map((u) => u.id).filter((id) => id !== myId);
  return { kind: "dm", userIds: others.length > 0 ? others.sort((a, b) => a - b) : [myId] };
}

/** The message's text without its markup, shortened for a notification. */
function plainText(html: string): string {
  const text = new DOMParser().parseFromString(html, "text/html").body.textContent ?? "";
  return text.trim().slice(0, 300);
}

let audio: AudioContext | null = null;

/** A short chime, made rather than fetched (no sound file to load). */
function chime(): void {
  try {
    audio ??= new AudioContext();
    const at = audio.currentTime;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start(at);
    tone.stop(at + 0.4);
  } catch {
    // No audio here (or not allowed yet): the notification stays silent.
  }
}

/** A message arrived live: notify the user if their settings ask for it. `reading`: the narrow on screen. */
export function notifyOf(message: Message, myId: number, reading: Narrow): void {
  if (!notifiable(message, myId)) return;
  if (document.visibilityState === "visible" && document.hasFocus() && matches(reading, message, myId)) return;
  if (wanted(message, "audible")) chime();
  if (!wanted(message, "desktop") || currentPermission() !== "granted") return;
  const to = where(message, myId);
  const title = to.kind === "topic" ? `${message.sender_full_name} (#${streamName(to.streamId)} > ${to.topic})` : message.sender_full_name;
  // As upstream, a direct message's words stay off the screen when pm_content_in_desktop_notifications is off.
  const hidden = message.type === "private" && settings.value.pm_content_in_desktop_notifications === false;
  const body = hidden ? `New direct message from ${message.sender_full_name}` : plainText(message.content);
  const shown = new Notification(title, { body, tag: String(message.id) });
  shown.onclick = () => {
    window.focus();
    location.hash = narrowHash(to, streamName);
    shown.close();
  };
}

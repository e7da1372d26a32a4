/**
 * Notifications while the tab is open, by the user's settings, as Zulip's web app decides them:
 * a desktop notification (the browser's Notification API, once the user granted it) and a sound
 * for direct messages and mentions (`enable_desktop_notifications`, `enable_sounds`; wildcard
 * mentions by `wildcard_mentions_notify`), and for channel messages when
 * `enable_stream_desktop_notifications` is on. Nothing for the user's own messages, nor for a
 * message being read in the focused tab; a muted topic, or a muted channel's topic not unmuted,
 * notifies only of a direct mention (the topic settings: state/muting.ts).
 */
import { signal } from "@preact/signals";
import type { Message } from "../api/types.ts";
import { inMutedTopic } from "./muting.ts";
import { matches, narrowHash, type Narrow } from "./narrow.ts";
import { settings, streamName } from "./store.ts";

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

/** Asks the browser for permission to notify (it asks the user once); resolves to the answer. */
export async function askPermission(): Promise<Permission> {
  if (currentPermission() === "default") await Notification.requestPermission();
  permission.value = currentPermission();
  return permission.value;
}

/** Why a message calls for the user's attention: "personal" (a direct message or mention), "channel", or null. */
function reason(message: Message): "personal" | "channel" | null {
  const s = settings.value;
  const personal = s.enable_desktop_notifications !== false || s.enable_sounds !== false;
  if (message.type === "private") return "personal";
  if (message.flags.includes("mentioned")) return "personal";
  if (inMutedTopic(message)) return null;
  const wildcard = message.flags.includes("stream_wildcard_mentioned") || message.flags.includes("topic_wildcard_mentioned");
  if (wildcard && personal && s.wildcard_mentions_notify !== false) return "personal";
  return s.enable_stream_desktop_notifications === true ? "channel" : null;
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
  if (message.sender_id === myId || message.flags.includes("read")) return;
  const why = reason(message);
  if (why === null) return;
  const to = where(message, myId);
  if (document.visibilityState === "visible" && document.hasFocus() && matches(reading, message, myId)) return;
  const s = settings.value;
  if (why === "personal" && s.enable_sounds !== false) chime();
  const desktop = why === "channel" || s.enable_desktop_notifications !== false;
  if (!desktop || currentPermission() !== "granted") return;
  const title = to.kind === "topic" ? `${message.sender_full_name} (#${streamName(to.streamId)} > ${to.topic})` : message.sender_full_name;
  const shown = new Notification(title, { body: plainText(message.content), tag: String(message.id) });
  shown.onclick = () => {
    window.focus();
    location.hash = narrowHash(to, streamName);
    shown.close();
  };
}

/**
 * Typing notifications both ways, with Zulip's timing: while the user types in the compose box
 * a "start" goes out at most every started-wait period (10 s), and a "stop" after the
 * stopped-wait period (5 s) without input, when the message is sent or the recipient changes;
 * others' "start" events show them as typing until their "stop" or the started-expiry period.
 */
import { effect, signal } from "@preact/signals";
import { api } from "../api/client.ts";
import type { RegisterResponse, ServerEvent } from "../api/types.ts";
import * as compose from "./compose.ts";
import { dmKey, type Narrow } from "./narrow.ts";
import { users } from "./store.ts";

/** Zulip's defaults (ms), used until the snapshot says otherwise. */
let startedWaitMs = 10_000;
let stoppedWaitMs = 5_000;
let startedExpiryMs = 45_000;

/** Takes the server's typing periods from the snapshot. */
export function loadTypingTimes(state: RegisterResponse): void {
  startedWaitMs = state.server_typing_started_wait_period_milliseconds ?? startedWaitMs;
  stoppedWaitMs = state.server_typing_stopped_wait_period_milliseconds ?? stoppedWaitMs;
  startedExpiryMs = state.server_typing_started_expiry_period_milliseconds ?? startedExpiryMs;
}

// --- Sending ---------------------------------------------------------------------------

/** Where the compose box sends to, as POST /typing takes it, with a key to tell recipients apart. */
type Target = { key: string; params: Record<string, string | number | number[]> };

function userIdOf(text: string): number | null {
  const lower = text.trim().toLowerCase();
  for (const u of users.value.values()) if (u.email.toLowerCase() === lower || u.full_name.toLowerCase() === lower) return u.user_id;
  return null;
}

/** The compose box's recipient, or null while it names none (or someone unknown). */
function composeTarget(): Target | null {
  if (compose.mode.value === "stream") {
    const streamId = compose.streamId.value;
    if (streamId === null) return null;
    const topic = compose.topic.value.trim();
    return { key: `s${streamId}\n${topic}`, params: { type: "stream", stream_id: streamId, topic } };
  }
  const parts = compose.recipients.value.split(",").filter((p) => p.trim() !== "");
  const ids = parts.map(userIdOf);
  if (ids.length === 0 || ids.some((id) => id === null)) return null;
  const to = ids.filter((id): id is number => id !== null).sort((a, b) => a - b);
  return { key: `d${to.join(",")}`, params: { type: "direct", to } };
}

let current: Target | null = null;
let lastStartAt = 0;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

function post(target: Target, op: "start" | "stop"): void {
  void api.typing({ ...target.params, op }).catch(() => undefined);
}

/** Sends "stop" for the conversation being typed to, if any. */
export function stopTyping(): void {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  if (current !== null) post(current, "stop");
  current = null;
}

/** The compose box's text changed by the user's typing: announce it (throttled). */
export function noteTyping(): void {
  const target = composeTarget();
  if (target === null || compose.content.value.trim() === "") return stopTyping();
  if (current !== null && current.key !== target.key) stopTyping();
  const now = Date.now();
  if (current === null || now - lastStartAt >= startedWaitMs) {
    post(target, "start");
    lastStartAt = now;
  }
  current = target;
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = setTimeout(stopTyping, stoppedWaitMs);
}

// The text emptied (the message was sent or cleared): stop at once.
effect(() => {
  if (compose.content.value === "" && current !== null) stopTyping();
});

// --- Receiving -------------------------------------------------------------------------

/** Who is typing where: conversation key -> user ids. */
const typists = signal<ReadonlyMap<string, readonly number[]>>(new Map());
const expiries = new Map<string, ReturnType<typeof setTimeout>>();

function streamKey(streamId: number, topic: string): string {
  return `s${streamId}\n${topic.toLowerCase()}`;
}

function setTypist(key: string, userId: number, on: boolean): void {
  const timerKey = `${key}\u0000${userId}`;
  const old = expiries.get(timerKey);
  if (old !== undefined) clearTimeout(old);
  expiries.delete(timerKey);
  if (on) expiries.set(timerKey, setTimeout(() => setTypist(key, userId, false), startedExpiryMs));
  const list = (typists.value.get(key) ?? []).filter((id) => id !== userId);
  if (on) list.push(userId);
  const next = new Map(typists.value);
  if (list.length > 0) next.set(key, list);
  else next.delete(key);
  typists.value = next;
}

/** A typing event from someone else. */
export function applyTyping(event: Extract<ServerEvent, { type: "typing" }>, myId: number): void {
  if (event.sender.user_id === myId) return;
  const on = event.op === "start";
  if (event.message_type === "stream") return setTypist(streamKey(event.stream_id, event.topic), event.sender.user_id, on);
  const others = [event.sender, ...event.recipients].map((u) => u.user_id).filter((id) => id !== myId);
  setTypist(`d${dmKey([...new Set(others)].sort((a, b) => a - b))}`, event.sender.user_id, on);
}

/** Forgets everyone's typing (a new snapshot). */
export function clearTypists(): void {
  for (const t of expiries.values()) clearTimeout(t);
  expiries.clear();
  typists.value = new Map();
}

/** The users typing in a narrow's conversation (a topic, a channel's topics, or a direct conversation). */
export function typingIn(narrow: Narrow): number[] {
  const map = typists.value;
  if (narrow.kind === "topic") return [...(map.get(streamKey(narrow.streamId, narrow.topic)) ?? [])];
  if (narrow.kind === "dm") return [...(map.get(`d${dmKey(narrow.userIds)}`) ?? [])];
  if (narrow.kind === "channel") {
    const prefix = `s${narrow.streamId}\n`;
    return [...new Set([...map].filter(([k]) => k.startsWith(prefix)).flatMap(([, ids]) => ids))];
  }
  return [];
}

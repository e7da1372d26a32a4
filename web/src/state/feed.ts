/**
 * The message feed of the current narrow: the loaded messages (oldest first), whether the
 * oldest was reached, older pages on demand, and the live changes events bring (new messages,
 * edits, deletions, reactions, flags). Switching narrows or re-registering loads afresh.
 */
import { batch, signal } from "@preact/signals";
import { api, ApiError } from "../api/client.ts";
import type { Message, Reaction } from "../api/types.ts";
import { inMutedTopic } from "./muting.ts";
import { apiTerms, FEED, matches, sameNarrow, type Narrow } from "./narrow.ts";

/** Messages fetched per page. */
const PAGE_SIZE = 100;

export const narrow = signal<Narrow>(FEED);
export const messages = signal<readonly Message[]>([]);
export const foundOldest = signal(false);
export const foundNewest = signal(false);
/** "initial" while the first page of a narrow loads, "older" while an older page loads. */
export const loading = signal<"initial" | "older" | null>(null);
export const loadError = signal<string | null>(null);
/** The selected message (keyboard focus of the feed), or null. */
export const selectedId = signal<number | null>(null);

/** Counts loads, so an answer for a narrow left meanwhile is dropped. */
let generation = 0;

function failure(err: unknown): string {
  return err instanceof ApiError ? err.message : "Could not load messages.";
}

/** Live messages of the narrow that came while its first page was loading (merged into it). */
let arrivedWhileLoading: Message[] = [];

/** Shows a narrow, loading its newest page. */
export async function showNarrow(next: Narrow, force = false): Promise<void> {
  // The same narrow, loaded or loading: nothing to do (unless the data may be stale).
  if (!force && sameNarrow(next, narrow.value) && (loading.value === "initial" || messages.value.length > 0)) return;
  const gen = ++generation;
  arrivedWhileLoading = [];
  batch(() => {
    narrow.value = next;
    messages.value = [];
    foundOldest.value = false;
    foundNewest.value = false;
    selectedId.value = null;
    loadError.value = null;
    loading.value = "initial";
  });
  try {
    const res = await api.messages({ anchor: "newest", num_before: PAGE_SIZE, num_after: 0, narrow: apiTerms(next), apply_markdown: true, client_gravatar: false });
    if (gen !== generation) return;
    const loaded = new Set(res.messages.map((m) => m.id));
    const arrived = arrivedWhileLoading.filter((m) => !loaded.has(m.id));
    arrivedWhileLoading = [];
    batch(() => {
      messages.value = arrived.length === 0 ? res.messages : [...res.messages, ...arrived].sort((a, b) => a.id - b.id);
      foundOldest.value = res.found_oldest;
      foundNewest.value = true;
      loading.value = null;
    });
  } catch (err) {
    loadFailed(gen, err);
  }
}

/** A page load failed: its error is shown, unless the narrow changed meanwhile. */
function loadFailed(gen: number, err: unknown): void {
  if (gen !== generation) return;
  batch(() => {
    loadError.value = failure(err);
    loading.value = null;
  });
}

/** The server is reachable again: a narrow whose load failed meanwhile ("Cannot reach the server.") loads afresh. */
export function reloadIfFailed(): void {
  if (loadError.value !== null) void showNarrow(narrow.value, true);
}

/** Loads the page before the oldest loaded message (infinite scroll backwards). */
export async function loadOlder(): Promise<void> {
  const oldest = messages.value[0];
  if (oldest === undefined || foundOldest.value || loading.value !== null) return;
  const gen = generation;
  loading.value = "older";
  try {
    const res = await api.messages({ anchor: oldest.id, include_anchor: false, num_before: PAGE_SIZE, num_after: 0, narrow: apiTerms(narrow.value), apply_markdown: true, client_gravatar: false });
    if (gen !== generation) return;
    batch(() => {
      const known = new Set(messages.value.map((m) => m.id));
      messages.value = [...res.messages.filter((m) => !known.has(m.id)), ...messages.value];
      foundOldest.value = res.found_oldest;
      loading.value = null;
    });
  } catch (err) {
    loadFailed(gen, err);
  }
}

/** A new message arrived: append it if it belongs here and the feed reaches the newest. */
export function addLive(message: Message, me: number): void {
  if (!matches(narrow.value, message, me)) return;
  if (narrow.value.kind === "feed" && inMutedTopic(message)) return;
  if (!foundNewest.value) {
    // The first page is on its way, and its answer may predate this message: kept for it.
    if (loading.value === "initial") arrivedWhileLoading.push(message);
    return;
  }
  if (messages.value.some((m) => m.id === message.id)) return;
  messages.value = [...messages.value, message];
}

/** Applies a change to the loaded messages with the given ids. */
export function updateMessages(ids: readonly number[], change: (m: Message) => Message): void {
  const wanted = new Set(ids);
  if (!messages.value.some((m) => wanted.has(m.id))) return;
  messages.value = messages.value.map((m) => (wanted.has(m.id) ? change(m) : m));
}

/** Drops loaded messages among `ids` that a move took out of the channel or topic shown. */
export function dropMovedOut(ids: readonly number[], me: number): void {
  const n = narrow.value;
  if (n.kind !== "channel" && n.kind !== "topic") return;
  const moved = new Set(ids);
  removeMessages(messages.value.filter((m) => moved.has(m.id) && !matches(n, m, me)).map((m) => m.id));
}

/** Drops deleted messages. */
export function removeMessages(ids: readonly number[]): void {
  const gone = new Set(ids);
  if (messages.value.some((m) => gone.has(m.id))) messages.value = messages.value.filter((m) => !gone.has(m.id));
}

/** Adds or removes one user's reaction. */
export function react(messageId: number, op: "add" | "remove", reaction: Reaction): void {
  const same = (r: Reaction) => r.user_id === reaction.user_id && r.emoji_code === reaction.emoji_code && r.reaction_type === reaction.reaction_type;
  updateMessages([messageId], (m) => ({ ...m, reactions: op === "add" ? [...m.reactions.filter((r) => !same(r)), reaction] : m.reactions.filter((r) => !same(r)) }));
}

/** Adds or removes a flag on loaded messages (all of them when `all`). */
export function setFlag(ids: readonly number[], flag: string, on: boolean, all = false): void {
  const change = (m: Message): Message => ({ ...m, flags: on ? [...m.flags.filter((f) => f !== flag), flag] : m.flags.filter((f) => f !== flag) });
  if (all) messages.value = messages.value.map(change);
  else updateMessages(ids, change);
}

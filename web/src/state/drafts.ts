/**
 * Drafts kept in the browser (localStorage), one per conversation, per user: what was typed to a
 * topic or a direct conversation stays there when the user goes elsewhere, and after a reload.
 * Drafts untouched for DRAFT_MAX_AGE_DAYS are dropped, as upstream's web app drops its own.
 *
 * With drafts saved on the server (server-drafts.ts), this is their offline copy: an entry
 * remembers the server draft it mirrors (`serverId`) and whether it changed since it was last
 * sent there (`dirty`); `deleted` lists the server drafts deleted here whose deletion the server
 * has not confirmed yet, so a reload does not bring them back.
 */
import { signal } from "@preact/signals";
import { dmKey } from "./narrow.ts";

/** What a draft remembers: where it goes and its text. */
export type Draft = { mode: "stream" | "dm"; streamId: number | null; topic: string; recipients: string; content: string };

/** A saved draft: when it was last changed (ms), and its server copy. */
export type StoredDraft = Draft & { at: number; serverId?: number; dirty?: boolean };

/** Drafts older than this are dropped when the drafts are next read (upstream keeps them 30 days). */
const DRAFT_MAX_AGE_DAYS = 30;
const DAY_MS = 86_400_000;
/** The key of the server drafts deleted here, not yet confirmed. */
const DELETED_KEY = "\u0000deleted";

/** Bumped on every change, so lists of drafts recompute. */
export const draftsVersion = signal(0);

function storageKey(userId: number): string {
  return `parley.drafts.${userId}`;
}

function isStored(value: unknown): value is StoredDraft {
  if (value === null || typeof value !== "object") return false;
  const v: Record<string, unknown> = { ...value };
  return (v.mode === "stream" || v.mode === "dm") && typeof v.topic === "string" && typeof v.recipients === "string" && typeof v.content === "string" && typeof v.at === "number";
}

type Cache = { userId: number; drafts: Map<string, StoredDraft>; deleted: Set<number> };
let cache: Cache | null = null;

function read(userId: number): Cache {
  if (cache?.userId === userId) return cache;
  const drafts = new Map<string, StoredDraft>();
  const deleted = new Set<number>();
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(userId)) ?? "{}");
    const oldest = Date.now() - DRAFT_MAX_AGE_DAYS * DAY_MS;
    if (parsed !== null && typeof parsed === "object") {
      for (const [key, value] of Object.entries(parsed)) {
        if (key === DELETED_KEY && Array.isArray(value)) for (const id of value) if (typeof id === "number") deleted.add(id);
        if (isStored(value) && value.at >= oldest) drafts.set(key, value);
      }
    }
  } catch {
    // No storage (private mode) or a damaged entry: start empty.
  }
  cache = { userId, drafts, deleted };
  return cache;
}

function write(userId: number): void {
  const { drafts, deleted } = read(userId);
  draftsVersion.value = draftsVersion.peek() + 1;
  try {
    localStorage.setItem(storageKey(userId), JSON.stringify({ ...Object.fromEntries(drafts), [DELETED_KEY]: [...deleted] }));
  } catch {
    // Storage full or refused: the draft lives on in this tab only.
  }
}

/** A user's draft under a key, if any. */
export function loadDraft(userId: number, key: string): StoredDraft | undefined {
  return read(userId).drafts.get(key);
}

/** Saves (or with null, drops) a user's draft under a key, changed now unless `at` says when. */
export function saveDraft(userId: number, key: string, draft: Draft | null, extra: { at?: number; serverId?: number; dirty?: boolean } = {}): void {
  const { drafts } = read(userId);
  if (draft === null && !drafts.has(key)) return;
  if (draft === null) drafts.delete(key);
  else drafts.set(key, { mode: draft.mode, streamId: draft.streamId, topic: draft.topic, recipients: draft.recipients, content: draft.content, at: extra.at ?? Date.now(), serverId: extra.serverId, dirty: extra.dirty });
  write(userId);
}

/** Changes a saved draft's server copy (after a save or a deletion on the server). */
export function markDraft(userId: number, key: string, change: { serverId?: number; dirty?: boolean }): void {
  const stored = read(userId).drafts.get(key);
  if (stored === undefined) return;
  read(userId).drafts.set(key, { ...stored, ...change });
  write(userId);
}

/** A user's drafts of conversations (not the remembered places: "last", a channel's last topic), by key. */
export function conversationDrafts(userId: number): ReadonlyMap<string, StoredDraft> {
  return new Map([...read(userId).drafts].filter(([key]) => isConversationKey(key)));
}

/** The server drafts deleted here whose deletion the server has not confirmed. */
export function deletedServerDrafts(userId: number): ReadonlySet<number> {
  return read(userId).deleted;
}

/** Notes (or with `done`, forgets) a server draft's deletion. */
export function noteDeleted(userId: number, serverId: number, done: boolean): void {
  const { deleted } = read(userId);
  if (done) deleted.delete(serverId);
  else deleted.add(serverId);
  write(userId);
}

// --- Conversation keys ------------------------------------------------------------------------

/** A channel topic's key (topics match case-insensitively, as Zulip's). */
export function topicDraftKey(streamId: number, topic: string): string {
  return `s${streamId}\n${topic.trim().toLowerCase()}`;
}

/** A direct conversation's key: its users other than oneself (oneself alone for notes to self), as the server keeps them. */
export function directDraftKey(userIds: readonly number[], selfId: number | undefined): string {
  const unique = [...new Set(userIds)].sort((a, b) => a - b);
  const others = unique.filter((id) => id !== selfId);
  return `d${dmKey(others.length > 0 ? others : unique)}`;
}

/** The key of direct recipients typed that name nobody known (kept locally only). */
export function unresolvedDraftKey(typed: string): string {
  return `d?${typed.trim().toLowerCase()}`;
}

/** Whether a key is a conversation's (a topic's or direct conversation's). */
export function isConversationKey(key: string): boolean {
  return key.startsWith("s") || key.startsWith("d");
}

/** The users of a direct conversation's key (null: a channel's key, or recipients nobody matched). */
export function directKeyUserIds(key: string): number[] | null {
  if (!key.startsWith("d") || key.startsWith("d?")) return null;
  return key.slice(1).split(",").map(Number).filter((id) => Number.isInteger(id) && id > 0);
}

/**
 * Drafts kept in the browser (localStorage), one per conversation, per user: what was typed to a
 * topic or a direct conversation stays there when the user goes elsewhere, and after a reload.
 * Drafts untouched for DRAFT_MAX_AGE_DAYS are dropped, as upstream's web app drops its own.
 */

/** What a draft remembers: where it goes and its text. */
export type Draft = { mode: "stream" | "dm"; streamId: number | null; topic: string; recipients: string; content: string };

type Stored = Draft & { at: number };

/** Drafts older than this are dropped when the drafts are next read (upstream keeps them 30 days). */
const DRAFT_MAX_AGE_DAYS = 30;
const DAY_MS = 86_400_000;

function storageKey(userId: number): string {
  return `parley.drafts.${userId}`;
}

function isStored(value: unknown): value is Stored {
  if (value === null || typeof value !== "object") return false;
  const v: Record<string, unknown> = { ...value };
  return (v.mode === "stream" || v.mode === "dm") && typeof v.topic === "string" && typeof v.recipients === "string" && typeof v.content === "string" && typeof v.at === "number";
}

let cache: { userId: number; drafts: Map<string, Stored> } | null = null;

function read(userId: number): Map<string, Stored> {
  if (cache?.userId === userId) return cache.drafts;
  const drafts = new Map<string, Stored>();
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(userId)) ?? "{}");
    const oldest = Date.now() - DRAFT_MAX_AGE_DAYS * DAY_MS;
    if (parsed !== null && typeof parsed === "object") {
      for (const [key, value] of Object.entries(parsed)) if (isStored(value) && value.at >= oldest) drafts.set(key, value);
    }
  } catch {
    // No storage (private mode) or a damaged entry: start empty.
  }
  cache = { userId, drafts };
  return drafts;
}

/** A user's draft under a conversation key, if any. */
export function loadDraft(userId: number, key: string): Draft | undefined {
  return read(userId).get(key);
}

/** Saves (or with null, drops) a user's draft under a conversation key. */
export function saveDraft(userId: number, key: string, draft: Draft | null): void {
  const drafts = read(userId);
  if (draft === null && !drafts.has(key)) return;
  if (draft === null) drafts.delete(key);
  else drafts.set(key, { ...draft, at: Date.now() });
  try {
    localStorage.setItem(storageKey(userId), JSON.stringify(Object.fromEntries(drafts)));
  } catch {
    // Storage full or refused: the draft lives on in this tab only.
  }
}

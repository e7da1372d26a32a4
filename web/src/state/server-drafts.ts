/**
 * Drafts saved on the server (Zulip's drafts API), while the user's enable_drafts_synchronization
 * setting is on: the server's list is then the drafts' source of truth, and the browser's copy
 * (drafts.ts) what the compose box reads and writes at once, and what is left offline.
 *
 * A change to a conversation's draft is saved here at once and sent SAVE_DELAY_MS later (a
 * draft's first save creates it there, later ones replace it); a deletion is sent at once. Calls
 * go one at a time. On each snapshot the two lists are reconciled: a copy deleted elsewhere goes,
 * one changed elsewhere comes, one changed here (offline, or cut short by a reload) is sent.
 * Drafts saved by other browsers are listed (drafts-view.ts), and the compose box takes the
 * newest one of a conversation when it goes there.
 */
import { computed, effect, signal, untracked } from "@preact/signals";
import { ApiError } from "../api/client.ts";
import { composeApi } from "../api/compose.ts";
import type { ComposeToolsEvent, DraftData, ServerDraft } from "../api/compose-types.ts";
import {
  conversationDrafts,
  deletedServerDrafts,
  directDraftKey,
  directKeyUserIds,
  loadDraft,
  markDraft,
  noteDeleted,
  saveDraft,
  topicDraftKey,
  type Draft,
  type StoredDraft,
} from "./drafts.ts";
import { me, setEntry, settings, users } from "./store.ts";

/** The server's drafts by id (none while synchronization is off). */
export const serverDrafts = signal<ReadonlyMap<number, ServerDraft>>(new Map());
/** Whether drafts are saved on the server (Zulip's default: on). */
export const syncOn = computed(() => settings.value.enable_drafts_synchronization !== false);

/** How long typing may pause before the draft is sent (each key would otherwise be a call). */
const SAVE_DELAY_MS = 1000;
/** A copy's server id while its creation is under way (ids are positive). */
const CREATING = 0;

/** Whether the snapshot's drafts are in (until then the server's list is unknown: nothing is sent). */
let loaded = false;
/** The setting as last acted on, so a change of it is seen once. */
let syncedBefore: boolean | null = null;
const timers = new Map<string, ReturnType<typeof setTimeout>>();
/** The calls, one after the other. */
let queue: Promise<void> = Promise.resolve();

function enqueue(work: () => Promise<void>): void {
  queue = queue.then(work).catch(() => undefined);
}

/** Direct recipients as the compose box shows them: emails, comma-separated. */
export function emailsOf(userIds: readonly number[]): string {
  return userIds.map((id) => users.value.get(id)?.email ?? String(id)).join(", ");
}

/** The conversation key of a server draft (null: one without a recipient, which the app leaves to others). */
export function serverDraftKey(draft: ServerDraft, selfId: number | undefined): string | null {
  if (draft.type === "stream" && draft.to.length === 1) return topicDraftKey(draft.to[0], draft.topic);
  if (draft.type === "private" && draft.to.length > 0) return directDraftKey(draft.to, selfId);
  return null;
}

/** A server draft as the compose box holds it. */
export function fromServer(draft: ServerDraft): Draft {
  if (draft.type === "stream") return { mode: "stream", streamId: draft.to[0] ?? null, topic: draft.topic, recipients: "", content: draft.content };
  return { mode: "dm", streamId: null, topic: "", recipients: emailsOf(draft.to), content: draft.content };
}

/** What a saved draft is sent as (null: direct recipients that match nobody, kept here only). */
function draftData(key: string, draft: StoredDraft): DraftData | null {
  const timestamp = Math.floor(draft.at / 1000);
  if (draft.mode === "stream") return draft.streamId === null ? null : { type: "stream", to: [draft.streamId], topic: draft.topic.trim(), content: draft.content, timestamp };
  const ids = directKeyUserIds(key);
  return ids === null || ids.length === 0 ? null : { type: "private", to: ids, topic: "", content: draft.content, timestamp };
}

function isServerId(id: number | undefined): id is number {
  return id !== undefined && id > CREATING;
}

function sameDraft(a: Draft, b: Draft): boolean {
  return a.content === b.content && a.mode === b.mode && a.streamId === b.streamId && a.topic === b.topic && a.recipients === b.recipients;
}

/** Sends a conversation's changed draft: replaces its server copy, or creates one. */
function send(userId: number, key: string): void {
  enqueue(async () => {
    const draft = loadDraft(userId, key);
    if (!syncOn.value || !loaded || draft === undefined || draft.dirty !== true || draft.serverId === CREATING) return;
    const data = draftData(key, draft);
    if (data === null) return;
    // Its server copy, or one of its conversation that no copy here refers to (another browser's,
    // sent meanwhile: after synchronization was turned on again, say), rather than a second one.
    const copyId = isServerId(draft.serverId) ? draft.serverId : unclaimedCopy(userId, key)?.id;
    if (copyId !== undefined) {
      markDraft(userId, key, { serverId: copyId });
      try {
        await composeApi.editDraft(copyId, data);
        settle(userId, key, draft);
        return;
      } catch (err) {
        // Deleted elsewhere meanwhile: created again below.
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
    markDraft(userId, key, { serverId: CREATING });
    let id: number | undefined;
    try {
      id = (await composeApi.createDrafts([data])).ids[0];
    } finally {
      adoptCreated(userId, id, key, draft);
    }
  });
}

/** The newest server draft of a conversation that no copy here refers to. */
function unclaimedCopy(userId: number, key: string): ServerDraft | undefined {
  const referenced = new Set([...conversationDrafts(userId).values()].map((d) => d.serverId));
  let newest: ServerDraft | undefined;
  for (const d of serverDrafts.peek().values()) {
    if (!referenced.has(d.id) && serverDraftKey(d, userId) === key && (newest === undefined || d.timestamp > newest.timestamp)) newest = d;
  }
  return newest;
}

/** A save went through: the copy is clean unless it changed meanwhile (then it goes again). */
function settle(userId: number, key: string, sent: StoredDraft): void {
  const now = loadDraft(userId, key);
  if (now === undefined) return;
  const changed = now.at !== sent.at;
  markDraft(userId, key, { dirty: changed });
  if (changed) schedule(userId, key);
}

/**
 * A creation's answer: the copy being created (it may have moved to another conversation's key
 * meanwhile, or been dropped) gets the new id, and goes again if it changed meanwhile; a dropped
 * one's server copy is deleted. A failed creation is tried again with the copy's next change or
 * the next snapshot.
 */
function adoptCreated(userId: number, id: number | undefined, sentKey: string, sent: StoredDraft): void {
  const entry = [...conversationDrafts(userId)].find(([, d]) => d.serverId === CREATING);
  if (entry === undefined) {
    if (id !== undefined) deleteServerDraft(userId, id);
    return;
  }
  const [key, now] = entry;
  const changed = key !== sentKey || now.at !== sent.at || !sameDraft(now, sent);
  markDraft(userId, key, { serverId: id, dirty: id === undefined || changed });
  if (id !== undefined && changed) schedule(userId, key);
}

function schedule(userId: number, key: string): void {
  clearTimeout(timers.get(key));
  timers.set(
    key,
    setTimeout(() => {
      timers.delete(key);
      send(userId, key);
    }, SAVE_DELAY_MS),
  );
}

/** Deletes a server draft (remembered until the server confirms, so a reload does not bring it back). */
export function deleteServerDraft(userId: number, id: number): void {
  if (!isServerId(id)) return;
  noteDeleted(userId, id, false);
  setEntry(serverDrafts, id, undefined);
  enqueue(async () => {
    if (!syncOn.value) return noteDeleted(userId, id, true);
    try {
      await composeApi.deleteDraft(id);
      noteDeleted(userId, id, true);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) noteDeleted(userId, id, true);
    }
  });
}

/** The compose box's text for a conversation changed (null: emptied, or sent). */
export function storeDraft(userId: number, key: string, draft: Draft | null): void {
  const stored = loadDraft(userId, key);
  if (draft === null) {
    if (stored === undefined) return;
    saveDraft(userId, key, null);
    if (isServerId(stored.serverId)) deleteServerDraft(userId, stored.serverId);
    return;
  }
  if (stored !== undefined && sameDraft(stored, draft)) return;
  saveDraft(userId, key, draft, { serverId: stored?.serverId, dirty: true });
  schedule(userId, key);
}

/** The user changed the recipient: the draft, and its server copy, go along (to null: dropped). */
export function moveDraft(userId: number, from: string, to: string | null): void {
  const stored = loadDraft(userId, from);
  if (stored === undefined) return;
  saveDraft(userId, from, null);
  if (to === null) {
    if (isServerId(stored.serverId)) deleteServerDraft(userId, stored.serverId);
    return;
  }
  saveDraft(userId, to, stored, { at: stored.at, serverId: stored.serverId, dirty: true });
  schedule(userId, to);
}

/** Puts a server draft in the browser's copy, under its conversation (restored, or changed elsewhere). */
export function takeServerDraft(userId: number, draft: ServerDraft): void {
  const key = serverDraftKey(draft, userId);
  if (key !== null) saveDraft(userId, key, fromServer(draft), { at: draft.timestamp * 1000, serverId: draft.id, dirty: false });
}

/**
 * The draft the compose box shows for a conversation: the browser's copy, unless a server draft
 * of the conversation is newer and the copy has nothing unsent (then that draft is taken).
 */
export function takeDraft(userId: number, key: string): Draft | undefined {
  const local = loadDraft(userId, key);
  if (!syncOn.value || local?.dirty === true) return local;
  let newest: ServerDraft | undefined;
  for (const d of serverDrafts.value.values()) if (serverDraftKey(d, userId) === key && (newest === undefined || d.timestamp > newest.timestamp)) newest = d;
  if (newest === undefined || (local !== undefined && newest.timestamp <= Math.floor(local.at / 1000))) return local;
  takeServerDraft(userId, newest);
  return loadDraft(userId, key);
}

/** Reconciles one saved copy with the server's list. */
function reconcile(userId: number, key: string, draft: StoredDraft, server: ReadonlyMap<number, ServerDraft>, referenced: Set<number>): void {
  // A copy never sent (or whose creation a reload cut short) takes a server draft of its conversation that no copy refers to.
  const copy = isServerId(draft.serverId) ? server.get(draft.serverId) : [...server.values()].find((d) => !referenced.has(d.id) && serverDraftKey(d, userId) === key);
  if (copy !== undefined) referenced.add(copy.id);
  if (copy === undefined) {
    // Its server copy was deleted elsewhere: so is it, unless it changed here since.
    if (isServerId(draft.serverId) && draft.dirty !== true) return saveDraft(userId, key, null);
    markDraft(userId, key, { serverId: undefined, dirty: true });
    return schedule(userId, key);
  }
  if (draft.dirty !== true && copy.timestamp > Math.floor(draft.at / 1000)) {
    if (serverDraftKey(copy, userId) !== key) saveDraft(userId, key, null);
    return takeServerDraft(userId, copy);
  }
  markDraft(userId, key, { serverId: copy.id });
  if (draft.dirty === true || copy.content !== draft.content) {
    markDraft(userId, key, { dirty: true });
    schedule(userId, key);
  }
}

/** The snapshot's drafts (or GET /drafts after the setting was turned on): the lists are reconciled. */
export function loadServerDrafts(list: readonly ServerDraft[] | undefined, userId: number): void {
  loaded = true;
  syncedBefore = syncOn.value;
  const deleted = deletedServerDrafts(userId);
  const server = new Map((list ?? []).filter((d) => !deleted.has(d.id)).map((d) => [d.id, d]));
  serverDrafts.value = server;
  if (!syncOn.value) return;
  // Deletions the server did not confirm are sent again; those it did are forgotten.
  const listed = new Set((list ?? []).map((d) => d.id));
  for (const id of [...deleted]) {
    if (listed.has(id)) deleteServerDraft(userId, id);
    else noteDeleted(userId, id, true);
  }
  const local = conversationDrafts(userId);
  const referenced = new Set([...local.values()].map((d) => d.serverId).filter(isServerId));
  for (const [key, draft] of local) reconcile(userId, key, draft, server, referenced);
}

/** Synchronization was turned off: the server deleted its drafts; the copies here stay, to be sent if it is turned on again. */
function forgetServerCopies(userId: number): void {
  serverDrafts.value = new Map();
  for (const id of deletedServerDrafts(userId)) noteDeleted(userId, id, true);
  for (const key of conversationDrafts(userId).keys()) markDraft(userId, key, { serverId: undefined, dirty: true });
}

/** The server's drafts events (this browser's changes come back too). */
export function applyDraftsEvent(event: Extract<ComposeToolsEvent, { type: "drafts" }>, userId: number): void {
  const deleted = deletedServerDrafts(userId);
  if (event.op === "add") {
    for (const d of event.drafts) if (!deleted.has(d.id)) setEntry(serverDrafts, d.id, d);
  } else if (event.op === "update") {
    if (!deleted.has(event.draft.id)) setEntry(serverDrafts, event.draft.id, event.draft);
  } else {
    setEntry(serverDrafts, event.draft_id, undefined);
    // Deleted elsewhere: the copy here goes too, unless it has changes of its own (then it is created again).
    for (const [key, draft] of conversationDrafts(userId)) {
      if (draft.serverId !== event.draft_id) continue;
      if (draft.dirty === true) markDraft(userId, key, { serverId: undefined });
      else saveDraft(userId, key, null);
    }
  }
}

/** Resets on sign-out. */
export function forgetServerDrafts(): void {
  loaded = false;
  syncedBefore = null;
  serverDrafts.value = new Map();
  for (const timer of timers.values()) clearTimeout(timer);
  timers.clear();
}

// The setting changed (here or in another tab): turned off, the server's drafts are gone; turned
// on, the copies here are sent.
effect(() => {
  const on = syncOn.value;
  const userId = me.value?.user_id;
  if (!loaded || userId === undefined || syncedBefore === null || on === syncedBefore) return;
  syncedBefore = on;
  if (!on) return untracked(() => forgetServerCopies(userId));
  composeApi.drafts().then(
    (res) => loadServerDrafts(res.drafts, userId),
    () => undefined,
  );
});

// Leaving the page: what waits to be sent goes now (the copy here keeps it if the call is cut short).
if (typeof window !== "undefined") {
  window.addEventListener("pagehide", () => {
    const userId = me.value?.user_id;
    if (userId === undefined) return;
    for (const [key, timer] of timers) {
      clearTimeout(timer);
      send(userId, key);
    }
    timers.clear();
  });
}

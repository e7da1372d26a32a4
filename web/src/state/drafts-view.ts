/**
 * The Drafts view's state: every draft, newest first (the browser's copies, and with drafts
 * saved on the server those saved by other browsers too), restoring one into the compose box
 * (its conversation opened) and deleting one.
 */
import { computed, signal } from "@preact/signals";
import { openDraft } from "./compose.ts";
import { conversationDrafts, directKeyUserIds, draftsVersion, loadDraft, saveDraft, type Draft } from "./drafts.ts";
import { narrowHash } from "./narrow.ts";
import { deleteServerDraft, fromServer, serverDraftKey, serverDrafts, syncOn, takeServerDraft } from "./server-drafts.ts";
import { me, streamName } from "./store.ts";

/** Whether the Drafts view is open. */
export const draftsOpen = signal(false);

/** A draft as listed: its conversation's key, when it was last changed (ms), its server copy's id. */
export type ListedDraft = { id: string; key: string; draft: Draft; at: number; serverId?: number; userIds: number[] | null };

/** The drafts, newest first. */
export const listedDrafts = computed<readonly ListedDraft[]>(() => {
  void draftsVersion.value;
  const userId = me.value?.user_id;
  if (userId === undefined) return [];
  const local = conversationDrafts(userId);
  const items: ListedDraft[] = [...local].map(([key, d]) => ({ id: `local:${key}`, key, draft: d, at: d.at, serverId: d.serverId || undefined, userIds: directKeyUserIds(key) }));
  if (syncOn.value) {
    const referenced = new Set(items.map((i) => i.serverId));
    const texts = new Set(items.map((i) => `${i.key}\n${i.draft.content}`));
    for (const d of serverDrafts.value.values()) {
      const key = serverDraftKey(d, userId);
      if (key === null || referenced.has(d.id) || texts.has(`${key}\n${d.content}`)) continue;
      items.push({ id: `server:${d.id}`, key, draft: fromServer(d), at: d.timestamp * 1000, serverId: d.id, userIds: directKeyUserIds(key) });
    }
  }
  return items.sort((a, b) => b.at - a.at);
});

/** Opens or closes the Drafts view. */
export function showDrafts(open: boolean): void {
  draftsOpen.value = open;
}

/** Restores a draft: its conversation opens, with the draft in the compose box. */
export function restoreDraft(item: ListedDraft): void {
  const userId = me.value?.user_id;
  if (userId === undefined) return;
  const server = item.serverId === undefined ? undefined : serverDrafts.value.get(item.serverId);
  if (server !== undefined && loadDraft(userId, item.key)?.serverId !== server.id) takeServerDraft(userId, server);
  draftsOpen.value = false;
  openDraft(item.draft);
  const { draft, userIds } = item;
  if (draft.mode === "stream" && draft.streamId !== null) location.hash = narrowHash({ kind: "topic", streamId: draft.streamId, topic: draft.topic }, streamName);
  else if (userIds !== null) location.hash = narrowHash({ kind: "dm", userIds });
}

/** Deletes a draft, here and on the server. */
export function deleteDraft(item: ListedDraft): void {
  const userId = me.value?.user_id;
  if (userId === undefined) return;
  if (item.serverId !== undefined) deleteServerDraft(userId, item.serverId);
  const local = loadDraft(userId, item.key);
  if (local !== undefined && (item.id.startsWith("local:") || local.serverId === item.serverId)) saveDraft(userId, item.key, null);
}

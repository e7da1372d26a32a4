/**
 * Saved snippets: texts the user keeps to insert in the compose box, kept by the server's events;
 * creating, editing and deleting them, and the snippet being edited (the editor dialog's).
 */
import { computed, signal } from "@preact/signals";
import { composeApi } from "../api/compose.ts";
import type { ComposeToolsEvent, SavedSnippet } from "../api/compose-types.ts";
import * as compose from "./compose.ts";
import { refusal } from "./errors.ts";
import { setEntry } from "./store.ts";

/** The user's snippets by id. */
export const snippets = signal<ReadonlyMap<number, SavedSnippet>>(new Map());
/** The snippet in the editor dialog: a new one (no id) or one being edited; null when closed. */
export const editingSnippet = signal<{ id?: number; title: string; content: string } | null>(null);

/** The snippets by title. */
export const sortedSnippets = computed(() => [...snippets.value.values()].sort((a, b) => a.title.localeCompare(b.title)));

/** Inserts a snippet's text at the compose box's caret. */
export function insertSnippet(snippet: SavedSnippet): void {
  compose.insertText(snippet.content);
}

/** Opens the editor: a new snippet starts with the compose box's text, as upstream's. */
export function startSnippet(snippet?: SavedSnippet): void {
  editingSnippet.value = snippet === undefined ? { title: "", content: compose.content.value } : { id: snippet.id, title: snippet.title, content: snippet.content };
}

/** Saves the editor's snippet (created, or changed); the list shows it at once. */
export async function saveSnippet(draft: { id?: number; title: string; content: string }): Promise<void> {
  const title = draft.title.trim();
  const content = draft.content.trim();
  if (title === "" || content === "") throw refusal("A snippet needs a title and a text.");
  if (draft.id === undefined) {
    const res = await composeApi.createSnippet(title, content);
    setEntry(snippets, res.saved_snippet_id, { id: res.saved_snippet_id, title, content, date_created: Math.floor(Date.now() / 1000) });
  } else {
    await composeApi.editSnippet(draft.id, { title, content });
    const known = snippets.value.get(draft.id);
    if (known !== undefined) setEntry(snippets, draft.id, { ...known, title, content });
  }
  editingSnippet.value = null;
}

/** Deletes a snippet. */
export async function deleteSnippet(id: number): Promise<void> {
  await composeApi.deleteSnippet(id);
  setEntry(snippets, id, undefined);
}

/** The snapshot's snippets. */
export function loadSnippets(list: readonly SavedSnippet[] | undefined): void {
  snippets.value = new Map((list ?? []).map((s) => [s.id, s]));
}

/** The server's events: created, edited, deleted (in this tab or another). */
export function applySnippetsEvent(event: Extract<ComposeToolsEvent, { type: "saved_snippets" }>): void {
  if (event.op === "remove") setEntry(snippets, event.saved_snippet_id, undefined);
  else setEntry(snippets, event.saved_snippet.id, event.saved_snippet);
}

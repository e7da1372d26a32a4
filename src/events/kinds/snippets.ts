/** `saved_snippets` events, sent only to the snippet's owner. */
import type { ApiSavedSnippet } from "../../present/attachments.ts";

/** A saved snippet created, edited or deleted. */
export type SavedSnippetsEvent =
  | { type: "saved_snippets"; op: "add" | "update"; saved_snippet: ApiSavedSnippet }
  | { type: "saved_snippets"; op: "remove"; saved_snippet_id: number };

/** A snippet was created or (FL 368) edited. */
export function savedSnippetEvent(op: "add" | "update", snippet: ApiSavedSnippet): SavedSnippetsEvent {
  return { type: "saved_snippets", op, saved_snippet: snippet };
}

/** A snippet was deleted. */
export function savedSnippetRemoveEvent(id: number): SavedSnippetsEvent {
  return { type: "saved_snippets", op: "remove", saved_snippet_id: id };
}

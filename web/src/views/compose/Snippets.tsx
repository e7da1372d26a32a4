/**
 * Saved snippets in the compose box: the toolbar's "Saved snippets" button opens the list (a
 * filter field when there are many); picking one inserts its text at the caret. Each can be
 * edited or deleted there, and "Add a new saved snippet" opens the editor dialog (SnippetEditor),
 * which starts with the compose box's text, as upstream's.
 */
import { useState } from "preact/hooks";
import type { SavedSnippet } from "../../api/compose-types.ts";
import { deleteSnippet, editingSnippet, insertSnippet, saveSnippet, sortedSnippets, startSnippet } from "../../state/snippets.ts";
import { ActionStatus, Field, useAction } from "../forms/action.tsx";
import { Modal } from "../forms/Modal.tsx";
import { PopoverButton } from "./PopoverButton.tsx";
import "./Snippets.css";

/** More snippets than this get a filter field. */
const FILTER_FROM = 6;

function SnippetRow({ snippet, onInsert, onEdit }: { snippet: SavedSnippet; onInsert: () => void; onEdit: () => void }) {
  const action = useAction();
  return (
    <li class="snippet-row">
      <button type="button" class="snippet-insert" aria-label={`Insert snippet: ${snippet.title}`} onClick={onInsert}>
        <span class="snippet-title">{snippet.title}</span>
        <span class="snippet-excerpt">{snippet.content}</span>
      </button>
      <button type="button" class="button-quiet snippet-action" aria-label={`Edit snippet: ${snippet.title}`} title="Edit" onClick={onEdit}>
        <span aria-hidden="true">✎</span>
      </button>
      <button type="button" class="button-quiet snippet-action" aria-label={`Delete snippet: ${snippet.title}`} title="Delete" disabled={action.busy} onClick={() => void action.run(() => deleteSnippet(snippet.id))}>
        <span aria-hidden="true">✕</span>
      </button>
      <ActionStatus action={action} />
    </li>
  );
}

function SnippetList({ onClose }: { onClose: () => void }) {
  const [filter, setFilter] = useState("");
  const all = sortedSnippets.value;
  const needle = filter.trim().toLowerCase();
  const shown = needle === "" ? all : all.filter((s) => s.title.toLowerCase().includes(needle) || s.content.toLowerCase().includes(needle));
  return (
    <>
      {all.length > FILTER_FROM && <input type="search" aria-label="Filter snippets" placeholder="Filter snippets" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} onKeyDown={(e) => e.key === "Enter" && e.preventDefault()} />}
      {all.length === 0 && <p class="popover-note">No saved snippets yet.</p>}
      <ul class="snippet-list">
        {shown.map((s) => (
          <SnippetRow
            key={s.id}
            snippet={s}
            onInsert={() => {
              onClose();
              insertSnippet(s);
            }}
            onEdit={() => {
              onClose();
              startSnippet(s);
            }}
          />
        ))}
      </ul>
      <button
        type="button"
        class="button-quiet"
        onClick={() => {
          onClose();
          startSnippet();
        }}
      >
        Add a new saved snippet
      </button>
    </>
  );
}

/** The toolbar's button and its list. */
export function SnippetsButton({ disabled }: { disabled: boolean }) {
  return (
    <PopoverButton label="Saved snippets" buttonClass="compose-tool compose-tool-text" scopeClass="toolbar-popover-scope" popoverLabel="Saved snippets" popoverClass="snippets-popover" disabled={disabled}>
      {(close) => <SnippetList onClose={close} />}
    </PopoverButton>
  );
}

/** The dialog that creates or edits a snippet. */
export function SnippetEditor() {
  const editing = editingSnippet.value;
  if (editing === null) return null;
  return <SnippetForm key={editing.id ?? "new"} initial={editing} />;
}

function SnippetForm({ initial }: { initial: { id?: number; title: string; content: string } }) {
  const [title, setTitle] = useState(initial.title);
  const [content, setContent] = useState(initial.content);
  const action = useAction();
  const heading = initial.id === undefined ? "Add a new saved snippet" : "Edit saved snippet";
  return (
    <Modal titleId="snippet-editor-title" title={heading} onClose={() => (editingSnippet.value = null)}>
      <form
        class="settings-form"
        aria-labelledby="snippet-editor-title"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(() => saveSnippet({ id: initial.id, title, content }));
        }}
      >
        <Field label="Title" required maxLength={60} value={title} onValue={setTitle} />
        <label>
          Snippet text
          <textarea rows={5} required value={content} onInput={(e) => setContent(e.currentTarget.value)} />
        </label>
        <ActionStatus action={action} />
        <button type="submit" class="button-primary" disabled={action.busy}>
          Save snippet
        </button>
      </form>
    </Modal>
  );
}

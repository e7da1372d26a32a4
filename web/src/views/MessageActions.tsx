/**
 * A message's actions: the hover toolbar with "Add emoji reaction" and the "Message actions"
 * menu (quote and reply, edit, delete, star), offered as the organization's rules allow
 * (state/message-rules.ts), and the confirmation before deleting. The menu is an ARIA menu:
 * arrow keys move between items, Esc closes it and gives the focus back to its button.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../api/types.ts";
import * as compose from "../state/compose.ts";
import { errorText } from "../state/errors.ts";
import { ensureGroups } from "../state/groups.ts";
import { deleteMessage, setStarred } from "../state/message-changes.ts";
import { canDelete, canEditContent, canEditTopic } from "../state/message-rules.ts";
import { me } from "../state/store.ts";
import { usePopoverPlacement } from "./popover.ts";

type MenuItem = { label: string; run: () => void };

function menuItems(message: Message, myId: number, on: { react: () => void; edit: () => void; remove: () => void }): MenuItem[] {
  const starred = message.flags.includes("starred");
  const items: MenuItem[] = [
    { label: "Add emoji reaction", run: on.react },
    { label: "Quote and reply", run: () => void compose.quoteAndReply(message, myId) },
  ];
  if (canEditContent(message, myId)) items.push({ label: "Edit message", run: on.edit });
  else if (canEditTopic(message, myId)) items.push({ label: "Edit topic", run: on.edit });
  items.push({ label: starred ? "Unstar message" : "Star message", run: () => setStarred(message.id, !starred) });
  if (canDelete(message, myId)) items.push({ label: "Delete message", run: on.remove });
  return items;
}

function Menu({ items, onClose }: { items: MenuItem[]; onClose: (refocus: boolean) => void }) {
  const root = useRef<HTMLDivElement>(null);
  usePopoverPlacement(root, (el) => el.parentElement?.querySelector("[aria-haspopup=menu]"));
  useEffect(() => {
    root.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const outside = (e: MouseEvent) => {
      if (e.target instanceof Node && root.current && !root.current.parentElement?.contains(e.target)) onClose(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    e.stopPropagation();
    const buttons = [...(root.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = buttons.findIndex((b) => b === document.activeElement);
    const go = (i: number) => buttons[(i + buttons.length) % buttons.length]?.focus();
    if (e.key === "ArrowDown") go(at + 1);
    else if (e.key === "ArrowUp") go(at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(buttons.length - 1);
    else if (e.key === "Escape") onClose(true);
    else if (e.key === "Tab") return onClose(false);
    else return;
    e.preventDefault();
  };
  return (
    <div class="actions-menu" role="menu" aria-label="Message actions" ref={root} onKeyDown={onKeyDown}>
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          onClick={(e) => {
            e.stopPropagation();
            onClose(false);
            item.run();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}

/** The toolbar of a message: the reaction button and the actions menu. */
export function MessageToolbar({ message, onReact, onEdit, onDelete }: { message: Message; onReact: () => void; onEdit: () => void; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const myId = me.value?.user_id;
  if (myId === undefined) return null;
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  return (
    <div class={`message-toolbar${open ? " open" : ""}`}>
      <button type="button" class="toolbar-button" data-picker-toggle aria-label="Add emoji reaction" title="Add emoji reaction" onClick={onReact}>
        <span aria-hidden="true">☺+</span>
      </button>
      <button
        ref={button}
        type="button"
        class="toolbar-button"
        aria-label="Message actions"
        title="Message actions"
        aria-haspopup="menu"
        aria-expanded={open}
        onMouseEnter={() => void ensureGroups()}
        onFocus={() => void ensureGroups()}
        onClick={() => {
          void ensureGroups();
          setOpen(!open);
        }}
      >
        <span aria-hidden="true">⋮</span>
      </button>
      {open && <Menu items={menuItems(message, myId, { react: onReact, edit: onEdit, remove: onDelete })} onClose={close} />}
    </div>
  );
}

/** The confirmation before deleting a message (a modal dialog). */
export function DeleteDialog({ message, onClose }: { message: Message; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const confirm = async () => {
    setBusy(true);
    try {
      await deleteMessage(message.id);
      onClose();
    } catch (err) {
      setError(errorText(err, "Could not delete the message."));
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={dialog}
      class="confirm-dialog"
      aria-labelledby={`delete-title-${message.id}`}
      onClose={onClose}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => e.stopPropagation()}
    >
      <h2 id={`delete-title-${message.id}`}>Delete message?</h2>
      <p>The message will be deleted for everyone. This cannot be undone.</p>
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog-buttons">
        <button type="button" class="button-quiet" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button type="button" class="button-danger" disabled={busy} onClick={() => void confirm()}>
          Delete
        </button>
      </div>
    </dialog>
  );
}

/**
 * A message's actions: the hover toolbar with "Add emoji reaction" and the "Message actions"
 * menu, as upstream's: quote and reply, edit, move (where the organization's move settings and
 * the user's role allow: state/message-rules.ts), mark as unread from here, star, copy link,
 * view source, edit history and read receipts (where the organization shows them), delete; and
 * the confirmation before deleting. The dialogs the menu opens are MessageDialogs.tsx's.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../api/types.ts";
import * as compose from "../state/compose.ts";
import { errorText } from "../state/errors.ts";
import { ensureGroups } from "../state/groups.ts";
import { deleteMessage, setStarred } from "../state/message-changes.ts";
import { copyMessageLink, markUnreadFrom, messageDialog, showNotice } from "../state/message-menu.ts";
import { canDelete, canEditContent, canEditTopic, canMoveToChannel, canViewHistory, readReceiptsEnabled } from "../state/message-rules.ts";
import { me } from "../state/store.ts";
import { MenuButton, type MenuItem } from "./ActionMenu.tsx";

/** Opens the move dialog for a message (MessageDialogs.tsx). */
export function openMove(message: Message, wholeTopic = false): void {
  if (message.type !== "stream" || message.stream_id === undefined) return;
  messageDialog.value = { kind: "move", target: { messageId: message.id, streamId: message.stream_id, topic: message.subject, wholeTopic } };
}

/** Marks a message and the later ones unread; a refusal shows as the notice. */
export function markUnread(message: Message): void {
  markUnreadFrom(message.id).catch((err: unknown) => showNotice(errorText(err, "Could not mark the messages unread.")));
}

function menuItems(message: Message, myId: number, on: { react: () => void; edit: () => void; remove: () => void }): MenuItem[] {
  const starred = message.flags.includes("starred");
  const contentEditable = canEditContent(message, myId);
  const items: MenuItem[] = [
    { label: "Add emoji reaction", run: on.react },
    { label: "Quote and reply", run: () => void compose.quoteAndReply(message, myId) },
  ];
  if (contentEditable) items.push({ label: "Edit message", run: on.edit });
  else if (canEditTopic(message, myId)) items.push({ label: "Edit topic", run: on.edit });
  if (canEditTopic(message, myId) || canMoveToChannel(message, myId)) items.push({ label: "Move messages", run: () => openMove(message) });
  if (message.flags.includes("read")) items.push({ label: "Mark as unread from here", run: () => markUnread(message) });
  items.push({ label: starred ? "Unstar message" : "Star message", run: () => setStarred(message.id, !starred) });
  items.push({ label: "Copy link to message", run: () => void copyMessageLink(message, myId) });
  if (!contentEditable) items.push({ label: "View message source", run: () => (messageDialog.value = { kind: "source", message }) });
  if (canViewHistory(message)) items.push({ label: "View edit history", run: () => (messageDialog.value = { kind: "history", message }) });
  if (readReceiptsEnabled()) items.push({ label: "View read receipts", run: () => (messageDialog.value = { kind: "receipts", message }) });
  if (canDelete(message, myId)) items.push({ label: "Delete message", run: on.remove });
  return items;
}

/** The toolbar of a message: the reaction button and the actions menu. */
export function MessageToolbar({ message, onReact, onEdit, onDelete }: { message: Message; onReact: () => void; onEdit: () => void; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  const myId = me.value?.user_id;
  if (myId === undefined) return null;
  return (
    <div class={`message-toolbar${open ? " open" : ""}`}>
      <button type="button" class="toolbar-button" data-picker-toggle aria-label="Add emoji reaction" title="Add emoji reaction" onClick={onReact}>
        <span aria-hidden="true">☺+</span>
      </button>
      <MenuButton
        label="Message actions"
        menuLabel="Message actions"
        prepare={() => void ensureGroups()}
        onOpenChange={setOpen}
        items={() => menuItems(message, myId, { react: onReact, edit: onEdit, remove: onDelete })}
      >
        <span aria-hidden="true">⋮</span>
      </MenuButton>
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

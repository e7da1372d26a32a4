/** The compose box's list dialogs (drafts, scheduled messages): a modal with a list of rows, or a note when there are none. */
import type { ComponentChildren } from "preact";
import { Modal } from "../forms/Modal.tsx";
import "./ComposeDialogs.css";

/** `count` rows (the children), under `top` (a setting); `emptyText` when there are none. */
export function ListDialog(props: { titleId: string; title: string; listLabel: string; emptyText: string; count: number; onClose: () => void; top?: ComponentChildren; children: ComponentChildren }) {
  return (
    <Modal titleId={props.titleId} title={props.title} class="compose-dialog" onClose={props.onClose}>
      {props.top}
      {props.count === 0 ? (
        <p class="settings-note">{props.emptyText}</p>
      ) : (
        <ul class="dialog-rows" aria-label={props.listLabel}>
          {props.children}
        </ul>
      )}
    </Modal>
  );
}

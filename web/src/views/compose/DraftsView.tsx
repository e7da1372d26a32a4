/**
 * The Drafts view: a dialog listing every draft, newest first, with where it goes and its text
 * (as text: a draft is not rendered), to restore into the compose box or delete; and the user's
 * setting that saves drafts on the server (so they follow the user to other browsers). Opened
 * from the compose toolbar, the sidebar, or a `#drafts` link.
 */
import { listedDrafts, deleteDraft, draftsOpen, restoreDraft, showDrafts, type ListedDraft } from "../../state/drafts-view.ts";
import { dmTitle, settings, streamName } from "../../state/store.ts";
import { dayLabel, timeOfDay } from "../format.ts";
import { SettingCheckbox } from "../settings/Personal.tsx";
import { useHashDialog } from "./hash-dialog.ts";
import { ListDialog } from "./ListDialog.tsx";

/** Where a draft goes, in words. */
function draftRecipient(item: ListedDraft): string {
  const { draft, userIds } = item;
  if (draft.mode === "stream") return draft.streamId === null ? "No channel" : `#${streamName(draft.streamId)} › ${draft.topic.trim() === "" ? "general chat" : draft.topic}`;
  return userIds !== null ? dmTitle(userIds) : draft.recipients;
}

function DraftRow({ item }: { item: ListedDraft }) {
  const to = draftRecipient(item);
  const seconds = Math.floor(item.at / 1000);
  const when = `${dayLabel(seconds)} ${timeOfDay(seconds, settings.value.twenty_four_hour_time)}`;
  return (
    <li class="dialog-row" aria-label={`Draft to ${to}, ${when}`}>
      <div class="dialog-row-header">
        <span class="dialog-row-title">{to}</span>
        <span class="dialog-row-time">{when}</span>
      </div>
      <p class="draft-text">{item.draft.content}</p>
      <div class="dialog-row-actions">
        <button type="button" class="button-primary" onClick={() => restoreDraft(item)}>
          Restore
        </button>
        <button type="button" class="button-quiet" onClick={() => deleteDraft(item)}>
          Delete
        </button>
      </div>
    </li>
  );
}

/** The dialog (while open). */
export function DraftsView() {
  useHashDialog("#drafts", showDrafts);
  if (!draftsOpen.value) return null;
  const list = listedDrafts.value;
  return (
    <ListDialog
      titleId="drafts-title"
      title="Drafts"
      listLabel="Saved drafts"
      emptyText="No drafts."
      count={list.length}
      onClose={() => showDrafts(false)}
      top={<SettingCheckbox name="enable_drafts_synchronization" label="Save drafts on the server, to find them in other browsers" />}
    >
      {list.map((item) => (
        <DraftRow key={item.id} item={item} />
      ))}
    </ListDialog>
  );
}

/** The compose box's dialogs: the Drafts view, the scheduled messages and the snippet editor. */
import { DraftsView } from "./DraftsView.tsx";
import { ScheduledView } from "./ScheduledView.tsx";
import { SnippetEditor } from "./Snippets.tsx";

/** Each renders while open (and the first two open on their `#drafts` and `#scheduled` links). */
export function ComposeDialogs() {
  return (
    <>
      <DraftsView />
      <ScheduledView />
      <SnippetEditor />
    </>
  );
}

/** The sidebar's ways to the Drafts view and the scheduled messages, with how many there are. */
import { listedDrafts, showDrafts } from "../../state/drafts-view.ts";
import { sidebarOpen } from "../../state/layout.ts";
import { scheduledMessages, showScheduled } from "../../state/scheduled.ts";
import "./ViewLinks.css";

function ViewButton({ label, count, icon, open }: { label: string; count: number; icon: string; open: () => void }) {
  return (
    <li>
      <button
        type="button"
        class="sidebar-item level-0 sidebar-view-button"
        aria-label={count > 0 ? `${label}, ${count}` : label}
        onClick={() => {
          sidebarOpen.value = false;
          open();
        }}
      >
        <span class="sidebar-icon" aria-hidden="true">
          {icon}
        </span>
        <span class="sidebar-label">{label}</span>
        {count > 0 && (
          <span class="sidebar-total" aria-hidden="true">
            {count}
          </span>
        )}
      </button>
    </li>
  );
}

/** The two entries, for the sidebar's list of views. */
export function ComposeViewLinks() {
  const scheduled = scheduledMessages.value.size;
  return (
    <>
      <ViewButton label="Drafts" count={listedDrafts.value.length} icon="✎" open={() => showDrafts(true)} />
      {scheduled > 0 && <ViewButton label="Scheduled messages" count={scheduled} icon="◷" open={() => showScheduled(true)} />}
    </>
  );
}

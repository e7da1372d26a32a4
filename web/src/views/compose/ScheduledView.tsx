/**
 * The scheduled messages: a dialog listing them, soonest first (a failed one marked), each
 * shown rendered, with its text and time to edit, or to cancel. Opened from "Send later", the
 * notice after scheduling, the sidebar, or a `#scheduled` link (the Notification Bot's).
 */
import { useState } from "preact/hooks";
import type { ScheduledMessage } from "../../api/compose-types.ts";
import { cancelScheduled, editScheduled, scheduledOpen, scheduledRecipient, showScheduled, sortedScheduled } from "../../state/scheduled.ts";
import { ActionStatus, useAction } from "../forms/action.tsx";
import { fullTime } from "../format.ts";
import { fromLocalInput, toLocalInput } from "./datetime.ts";
import { RenderedHtml } from "../RenderedHtml.tsx";
import { useHashDialog } from "./hash-dialog.ts";
import { ListDialog } from "./ListDialog.tsx";

function EditForm({ message, onDone }: { message: ScheduledMessage; onDone: () => void }) {
  const [content, setContent] = useState(message.content);
  const [time, setTime] = useState(toLocalInput(message.scheduled_delivery_timestamp));
  const action = useAction();
  const save = async (e: Event) => {
    e.preventDefault();
    const seconds = fromLocalInput(time);
    const change = {
      content: content === message.content ? undefined : content,
      seconds: time === toLocalInput(message.scheduled_delivery_timestamp) ? undefined : seconds,
    };
    if (await action.run(() => editScheduled(message.scheduled_message_id, change))) onDone();
  };
  return (
    <form class="scheduled-edit" aria-label="Edit scheduled message" onSubmit={(e) => void save(e)}>
      <label>
        Scheduled message text
        <textarea rows={3} value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      </label>
      <label>
        Delivery time
        <input type="datetime-local" value={time} onInput={(e) => setTime(e.currentTarget.value)} />
      </label>
      <ActionStatus action={action} />
      <div class="dialog-row-actions">
        <button type="submit" class="button-primary" disabled={action.busy}>
          Save
        </button>
        <button type="button" class="button-quiet" onClick={onDone}>
          Discard changes
        </button>
      </div>
    </form>
  );
}

function ScheduledRow({ message }: { message: ScheduledMessage }) {
  const [editing, setEditing] = useState(false);
  const cancel = useAction();
  const to = scheduledRecipient(message);
  const when = fullTime(message.scheduled_delivery_timestamp);
  return (
    <li class="dialog-row" aria-label={`To ${to}, ${when}`}>
      <div class="dialog-row-header">
        <span class="dialog-row-title">{to}</span>
        <span class={message.failed ? "form-error" : "dialog-row-time"}>{message.failed ? `Not sent (was due ${when})` : `Scheduled for ${when}`}</span>
      </div>
      {editing ? (
        <EditForm message={message} onDone={() => setEditing(false)} />
      ) : (
        <>
          <RenderedHtml html={message.rendered_content} />
          <div class="dialog-row-actions">
            <button type="button" class="button-quiet" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" class="button-quiet" disabled={cancel.busy} onClick={() => void cancel.run(() => cancelScheduled(message.scheduled_message_id))}>
              Cancel message
            </button>
          </div>
          <ActionStatus action={cancel} />
        </>
      )}
    </li>
  );
}

/** The dialog (while open). */
export function ScheduledView() {
  useHashDialog("#scheduled", showScheduled);
  if (!scheduledOpen.value) return null;
  const list = sortedScheduled.value;
  return (
    <ListDialog titleId="scheduled-title" title="Scheduled messages" listLabel="Scheduled messages" emptyText="No scheduled messages." count={list.length} onClose={() => showScheduled(false)}>
      {list.map((m) => (
        <ScheduledRow key={m.scheduled_message_id} message={m} />
      ))}
    </ListDialog>
  );
}

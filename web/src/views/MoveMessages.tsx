/**
 * Moving messages (upstream's move dialog): to another topic, and to another channel where the
 * organization lets the user move between channels; how far the move reaches (only this message,
 * it and the later ones of its topic, or the whole topic); and which topics get the Notification
 * Bot's notice. The server decides: its refusal shows in the dialog.
 */
import { useState } from "preact/hooks";
import { moveMessages, type MoveTarget, type PropagateMode } from "../state/message-menu.ts";
import { moveRights } from "../state/message-rules.ts";
import { me, sortedSubscriptions } from "../state/store.ts";
import { ActionStatus, Field, NumberSelect, useAction } from "./forms/action.tsx";
import { Modal } from "./forms/Modal.tsx";

const MODES: ReadonlyArray<{ value: PropagateMode; label: string }> = [
  { value: "change_one", label: "Move only this message" },
  { value: "change_later", label: "Move this and all following messages in this topic" },
  { value: "change_all", label: "Move all messages in this topic" },
];

/** Zulip's topic length limit. */
const MAX_TOPIC_LENGTH = 60;

/** The dialog; `onClose` closes it (after a move too). */
export function MoveDialog({ target, onClose }: { target: MoveTarget; onClose: () => void }) {
  // What the user may change, as the dialog opened (the server decides on the move itself).
  const [rights] = useState(() => moveRights(me.value?.user_id ?? 0));
  const [streamId, setStreamId] = useState(target.streamId);
  const [topic, setTopic] = useState(target.topic);
  const [mode, setMode] = useState<PropagateMode>(target.wholeTopic ? "change_all" : "change_later");
  const [notifyNew, setNotifyNew] = useState(true);
  const [notifyOld, setNotifyOld] = useState(false);
  const action = useAction();
  const channels = sortedSubscriptions.value.map((s) => ({ value: s.stream_id, label: `#${s.name}` }));
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await action.run(() => moveMessages(target, { streamId, topic: topic.trim(), mode, notifyOld, notifyNew }))) onClose();
  };
  const title = target.wholeTopic ? "Move topic" : "Move messages";
  return (
    <Modal titleId="move-title" title={title} class="message-dialog" onClose={onClose}>
      <form class="settings-form move-form" aria-label={title} onSubmit={(e) => void submit(e)}>
        {rights.channels && (
          <label>
            Channel
            <NumberSelect value={streamId} choices={channels} onValue={setStreamId} />
          </label>
        )}
        {rights.topics || rights.channels ? <Field label="Topic" value={topic} onValue={setTopic} maxLength={MAX_TOPIC_LENGTH} /> : null}
        {!target.wholeTopic && (
          <label>
            Which messages
            <select value={mode} onChange={(e) => setMode(MODES.find((m) => m.value === e.currentTarget.value)?.value ?? "change_later")}>
              {MODES.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <label class="checkbox-label">
          <input type="checkbox" checked={notifyNew} onChange={(e) => setNotifyNew(e.currentTarget.checked)} />
          Send automated notice to new topic
        </label>
        <label class="checkbox-label">
          <input type="checkbox" checked={notifyOld} onChange={(e) => setNotifyOld(e.currentTarget.checked)} />
          Send automated notice to old topic
        </label>
        <ActionStatus action={action} />
        <div class="dialog-buttons">
          <button type="button" class="button-quiet" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button-primary" disabled={action.busy}>
            Move
          </button>
        </div>
      </form>
    </Modal>
  );
}

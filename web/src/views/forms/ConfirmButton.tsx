/** A button for an action that cannot be undone at a click (archiving, deactivating): it asks first, then shows the outcome; and the one that archives a channel. */
import { useState } from "preact/hooks";
import { ActionStatus, useAction } from "./action.tsx";

/**
 * `label` names the button, `question` the confirmation (its group's name), `detail` says what
 * follows, `confirmLabel` names the button that does it, `run` does it.
 */
export function ConfirmButton(props: { label: string; question: string; detail: string; confirmLabel: string; run: () => Promise<unknown> }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  if (!confirming) {
    return (
      <button type="button" class="button-quiet" onClick={() => setConfirming(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <div class="confirm-row" role="group" aria-label={props.question}>
      <span>
        {props.question} {props.detail}
      </span>
      <button type="button" class="button-danger" disabled={action.busy} onClick={() => void action.run(props.run)}>
        {props.confirmLabel}
      </button>
      <button type="button" class="button-quiet" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      <ActionStatus action={action} />
    </div>
  );
}

/** Archiving a channel (the channel settings dialog, the administrators' channel list). */
export function ArchiveChannelButton({ name, archive }: { name: string; archive: () => Promise<unknown> }) {
  return <ConfirmButton label="Archive channel" question={`Archive #${name}?`} detail="Its messages stay readable; nobody can post to it." confirmLabel="Yes, archive" run={archive} />;
}

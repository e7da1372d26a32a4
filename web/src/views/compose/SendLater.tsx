/**
 * "Send later" next to the Send button: upstream's suggested times and a custom date and time
 * (at least five minutes ahead), a link to the scheduled messages, and after scheduling a notice
 * with the delivery time.
 */
import { useState } from "preact/hooks";
import * as compose from "../../state/compose.ts";
import { lastScheduled, MIN_DELAY_SECONDS, scheduleCompose, sendLaterChoices, showScheduled } from "../../state/scheduled.ts";
import { settings } from "../../state/store.ts";
import { ActionStatus, useAction } from "../forms/action.tsx";
import { fullTime } from "../format.ts";
import { fromLocalInput, toLocalInput } from "./datetime.ts";
import { PopoverButton } from "./PopoverButton.tsx";
import "./SendLater.css";

function SendLaterMenu({ onClose }: { onClose: () => void }) {
  const action = useAction();
  const now = Date.now();
  const [custom, setCustom] = useState(() => toLocalInput(Math.ceil(now / 1000) + MIN_DELAY_SECONDS + 60));
  const schedule = async (seconds: number) => {
    if (await action.run(() => scheduleCompose(seconds))) onClose();
  };
  return (
    <>
      <p class="popover-heading">Schedule message</p>
      {sendLaterChoices(new Date(now), settings.value.twenty_four_hour_time).map((c) => (
        <button key={c.at} type="button" class="popover-choice" disabled={action.busy} onClick={() => void schedule(c.at)}>
          {c.label}
        </button>
      ))}
      <div class="send-later-custom">
        <label>
          Custom time
          <input
            type="datetime-local"
            value={custom}
            min={toLocalInput(Math.ceil(now / 1000) + MIN_DELAY_SECONDS)}
            onInput={(e) => setCustom(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter schedules, rather than submitting (sending) the compose form.
              if (e.key !== "Enter") return;
              e.preventDefault();
              void schedule(fromLocalInput(custom));
            }}
          />
        </label>
        <button type="button" class="button-primary" disabled={action.busy} onClick={() => void schedule(fromLocalInput(custom))}>
          Schedule
        </button>
      </div>
      <ActionStatus action={action} />
      <button
        type="button"
        class="popover-choice"
        onClick={() => {
          onClose();
          showScheduled(true);
        }}
      >
        View scheduled messages
      </button>
    </>
  );
}

/** The button and its menu. */
export function SendLater() {
  return (
    <PopoverButton label="Send later" buttonClass="button-quiet" scopeClass="send-later" popoverLabel="Schedule message" popoverClass="send-later-popover" disabled={compose.content.value.trim() === ""}>
      {(close) => <SendLaterMenu onClose={close} />}
    </PopoverButton>
  );
}

/** After scheduling: when the message goes, and the way to the list. */
export function ScheduledNotice() {
  const last = lastScheduled.value;
  if (last === null) return null;
  return (
    <div class="scheduled-notice" role="status">
      <span>Your message is scheduled for {fullTime(last.at)}.</span>
      <button type="button" class="button-quiet" onClick={() => showScheduled(true)}>
        View scheduled messages
      </button>
      <button type="button" class="button-quiet" aria-label="Dismiss" onClick={() => (lastScheduled.value = null)}>
        ×
      </button>
    </div>
  );
}

/**
 * The compose box: to a channel and topic or to direct recipients, the message text, and
 * sending with Enter or Ctrl+Enter as the user's `enter_sends` setting says.
 */
import { useEffect, useRef } from "preact/hooks";
import { api } from "../api/client.ts";
import * as compose from "../state/compose.ts";
import { settings, sortedSubscriptions } from "../state/store.ts";

function onKeyDown(e: KeyboardEvent): void {
  if (e.key === "Escape") {
    if (e.currentTarget instanceof HTMLElement) e.currentTarget.blur();
    return;
  }
  if (e.key !== "Enter" || e.isComposing) return;
  const enterSends = settings.value.enter_sends;
  const sends = enterSends ? !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey : e.ctrlKey || e.metaKey;
  if (!sends) return;
  e.preventDefault();
  void compose.send();
}

function toggleEnterSends(e: Event): void {
  if (!(e.currentTarget instanceof HTMLInputElement)) return;
  const value = e.currentTarget.checked;
  settings.value = { ...settings.value, enter_sends: value };
  void api.updateSettings({ enter_sends: value }).catch(() => undefined);
}

function RecipientFields({ topicRef, toRef }: { topicRef: { current: HTMLInputElement | null }; toRef: { current: HTMLInputElement | null } }) {
  if (compose.mode.value === "dm") {
    return (
      <input
        ref={toRef}
        class="compose-to"
        aria-label="To"
        placeholder="Email or name, comma-separated"
        value={compose.recipients.value}
        onInput={(e) => (compose.recipients.value = e.currentTarget.value)}
      />
    );
  }
  return (
    <>
      <select aria-label="Channel" class="compose-channel" value={String(compose.streamId.value ?? "")} onChange={(e) => (compose.streamId.value = Number(e.currentTarget.value))}>
        {sortedSubscriptions.value.map((s) => (
          <option key={s.stream_id} value={String(s.stream_id)}>
            # {s.name}
          </option>
        ))}
      </select>
      <input ref={topicRef} class="compose-topic" aria-label="Topic" placeholder="Topic" maxLength={60} value={compose.topic.value} onInput={(e) => (compose.topic.value = e.currentTarget.value)} />
    </>
  );
}

/** The compose box under the feed. */
export function Compose() {
  const textRef = useRef<HTMLTextAreaElement>(null);
  const topicRef = useRef<HTMLInputElement>(null);
  const toRef = useRef<HTMLInputElement>(null);
  const request = compose.focusRequest.value;
  useEffect(() => {
    if (request.n === 0) return;
    const target = request.field === "topic" ? topicRef.current : request.field === "recipients" ? toRef.current : textRef.current;
    target?.focus();
  }, [request]);
  const enterSends = settings.value.enter_sends;
  const isDm = compose.mode.value === "dm";
  return (
    <form
      class="compose"
      aria-label="Compose"
      onSubmit={(e) => {
        e.preventDefault();
        void compose.send();
      }}
    >
      <div class="compose-recipient">
        <div class="compose-mode" role="group" aria-label="Send to">
          <button type="button" class={isDm ? "" : "active"} aria-pressed={!isDm} onClick={() => (compose.mode.value = "stream")}>
            Channel
          </button>
          <button type="button" class={isDm ? "active" : ""} aria-pressed={isDm} onClick={() => (compose.mode.value = "dm")}>
            Direct message
          </button>
        </div>
        <RecipientFields topicRef={topicRef} toRef={toRef} />
      </div>
      <textarea
        ref={textRef}
        aria-label="Message"
        class="compose-text"
        rows={3}
        placeholder={isDm ? "Message your conversation" : "Message this topic"}
        value={compose.content.value}
        onInput={(e) => (compose.content.value = e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div class="compose-footer">
        <label class="enter-sends">
          <input type="checkbox" checked={enterSends} onChange={toggleEnterSends} /> Press Enter to send
        </label>
        <span class="compose-hint">{enterSends ? "Shift+Enter for a new line" : "Ctrl+Enter to send"}</span>
        {compose.sendError.value !== null && (
          <span class="form-error" role="alert">
            {compose.sendError.value}
          </span>
        )}
        <button type="submit" class="button-primary" disabled={compose.sending.value || compose.content.value.trim() === ""}>
          Send
        </button>
      </div>
    </form>
  );
}

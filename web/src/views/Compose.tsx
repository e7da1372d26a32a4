/**
 * The compose box: to a channel and topic or to direct recipients, the message text with its
 * autocomplete (`@`, `#`, `:`), file uploads (the "Upload files" button, pasting, dropping), and
 * sending with Enter or Ctrl+Enter as the user's `enter_sends` setting says. Its tools are in
 * compose/: the toolbar (formatting, Ctrl+B and Ctrl+I, preview, saved snippets, drafts), "Send
 * later", and the dialogs of drafts, scheduled messages and the snippet editor (ComposeDialogs,
 * beside the page's other dialogs: their forms cannot sit in this one).
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import * as compose from "../state/compose.ts";
import { applyFormat, formatKey } from "../state/compose-format.ts";
import { previewing, setPreviewing } from "../state/preview.ts";
import { setEnterSends } from "../state/settings.ts";
import { settings, sortedSubscriptions } from "../state/store.ts";
import { noteTyping } from "../state/typing.ts";
import { uploadError, uploadFiles, uploadsInProgress } from "../state/uploads.ts";
import { useAutocomplete } from "./Autocomplete.tsx";
import { Preview } from "./compose/Preview.tsx";
import { ScheduledNotice, SendLater } from "./compose/SendLater.tsx";
import { Toolbar } from "./compose/Toolbar.tsx";

/** Sends unless files are still uploading; an upload's failure notice goes with the send. */
function submit(): void {
  if (uploadsInProgress.value.length > 0) return;
  uploadError.value = null;
  setPreviewing(false);
  void compose.send();
}

function sendKey(e: KeyboardEvent): void {
  const format = formatKey(e);
  if (format !== null && e.currentTarget instanceof HTMLTextAreaElement) {
    e.preventDefault();
    compose.setCaret(e.currentTarget.selectionStart, e.currentTarget.selectionEnd);
    applyFormat(format);
    return;
  }
  if (e.key === "Escape") {
    if (e.currentTarget instanceof HTMLElement) e.currentTarget.blur();
    return;
  }
  if (e.key !== "Enter" || e.isComposing) return;
  const enterSends = settings.value.enter_sends;
  const sends = enterSends ? !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey : e.ctrlKey || e.metaKey;
  if (!sends) return;
  e.preventDefault();
  submit();
}

function toggleEnterSends(e: Event): void {
  if (!(e.currentTarget instanceof HTMLInputElement)) return;
  setEnterSends(e.currentTarget.checked);
}

function reportCaret(e: Event): void {
  if (e.currentTarget instanceof HTMLTextAreaElement) compose.setCaret(e.currentTarget.selectionStart, e.currentTarget.selectionEnd);
}

function RecipientFields({ topicRef, toRef }: { topicRef: { current: HTMLInputElement | null }; toRef: { current: HTMLInputElement | null } }) {
  if (compose.mode.value === "dm") {
    return (
      // Keyed apart from the Topic input: Preact would otherwise reuse that element, and removing
      // its maxLength leaves the To field limited to 0 characters.
      <input
        key="to"
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
      <select key="channel" aria-label="Channel" class="compose-channel" value={String(compose.streamId.value ?? "")} onChange={(e) => (compose.streamId.value = Number(e.currentTarget.value))}>
        {sortedSubscriptions.value.map((s) => (
          <option key={s.stream_id} value={String(s.stream_id)}>
            # {s.name}
          </option>
        ))}
      </select>
      <input key="topic" ref={topicRef} class="compose-topic" aria-label="Topic" placeholder="Topic" maxLength={60} value={compose.topic.value} onInput={(e) => (compose.topic.value = e.currentTarget.value)} />
    </>
  );
}

/** Uploads in progress and the last upload failure. */
function UploadStatus() {
  return (
    <>
      {uploadsInProgress.value.map((u) => (
        <progress key={u.id} class="upload-progress" aria-label={`Uploading ${u.name}`} max={1} value={u.fraction} />
      ))}
      {uploadError.value !== null && (
        <span class="form-error" role="alert">
          {uploadError.value}
        </span>
      )}
    </>
  );
}

/** Focus requests and caret moves asked for by the state (reply, quote, inserted text). */
function useFocusRequests(textRef: { current: HTMLTextAreaElement | null }, topicRef: { current: HTMLInputElement | null }, toRef: { current: HTMLInputElement | null }): void {
  const request = compose.focusRequest.value;
  useEffect(() => {
    if (request.n === 0) return;
    const target = request.field === "topic" ? topicRef.current : request.field === "recipients" ? toRef.current : textRef.current;
    target?.focus();
  }, [request]);
  const caret = compose.caretRequest.value;
  // A layout effect: it runs right after the text is rendered, before the next key is handled.
  useLayoutEffect(() => {
    const el = textRef.current;
    if (caret.n === 0 || el === null) return;
    if (caret.focus) el.focus();
    // Setting the text moved the browser's caret to the end: put it back where the state says,
    // unless the user typed since (the caret is then theirs).
    if (document.activeElement === el && el.value === caret.text) el.setSelectionRange(caret.start, caret.end);
  }, [caret]);
}

/** The compose box under the feed. */
export function Compose() {
  const textRef = useRef<HTMLTextAreaElement>(null);
  const topicRef = useRef<HTMLInputElement>(null);
  const toRef = useRef<HTMLInputElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const [dropping, setDropping] = useState(false);
  const autocomplete = useAutocomplete();
  useFocusRequests(textRef, topicRef, toRef);
  // Text changed by the state (sent, quoted, uploaded, completed): the typed word is read again,
  // in a layout effect, right after the text is rendered (a deferred effect could run after the
  // next key, with the text of before it).
  const text = compose.content.value;
  useLayoutEffect(() => {
    if (textRef.current !== null && textRef.current.value === text) autocomplete.update(textRef.current);
  }, [text]);
  const enterSends = settings.value.enter_sends;
  const isDm = compose.mode.value === "dm";
  const uploading = uploadsInProgress.value.length > 0;
  const track = (e: Event) => {
    reportCaret(e);
    if (e.currentTarget instanceof HTMLTextAreaElement) autocomplete.update(e.currentTarget);
  };
  const onPaste = (e: ClipboardEvent) => {
    const files = [...(e.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    e.preventDefault();
    void uploadFiles(files);
  };
  const onDrop = (e: DragEvent) => {
    const files = [...(e.dataTransfer?.files ?? [])];
    setDropping(false);
    if (files.length === 0) return;
    e.preventDefault();
    if (e.target instanceof HTMLTextAreaElement) compose.setCaret(e.target.selectionStart, e.target.selectionEnd);
    void uploadFiles(files);
  };
  const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes("Files") === true;
  const inPreview = previewing.value;
  return (
    <form
      class={`compose${dropping ? " dropping" : ""}`}
      aria-label="Compose"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
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
      <div class="compose-text-wrap">
        {autocomplete.list}
        {inPreview && <Preview />}
        <textarea
          ref={textRef}
          hidden={inPreview}
          aria-label="Message"
          class="compose-text"
          rows={3}
          placeholder={isDm ? "Message your conversation" : "Message this topic"}
          value={compose.content.value}
          {...autocomplete.attributes}
          onInput={(e) => {
            compose.content.value = e.currentTarget.value;
            track(e);
            noteTyping();
          }}
          onKeyDown={(e) => {
            if (!autocomplete.onKeyDown(e)) sendKey(e);
          }}
          onKeyUp={(e) => {
            if (e.key.startsWith("Arrow") || e.key === "Home" || e.key === "End") track(e);
          }}
          onClick={track}
          onBlur={(e) => {
            reportCaret(e);
            autocomplete.close();
          }}
          onPaste={onPaste}
        />
      </div>
      <Toolbar />
      <div class="compose-footer">
        <input
          ref={fileRef}
          type="file"
          multiple
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => {
            const files = [...(e.currentTarget.files ?? [])];
            e.currentTarget.value = "";
            void uploadFiles(files);
          }}
        />
        <button type="button" class="button-quiet upload-button" aria-label="Upload files" title="Upload files" onClick={() => fileRef.current?.click()}>
          <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
            <path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M21 11.5l-8.5 8.5a5 5 0 0 1-7-7l9-9a3.5 3.5 0 0 1 5 5l-9 9a2 2 0 0 1-3-3l8-8" />
          </svg>
        </button>
        <label class="enter-sends">
          <input type="checkbox" checked={enterSends} onChange={toggleEnterSends} /> Press Enter to send
        </label>
        <span class="compose-hint">{enterSends ? "Shift+Enter for a new line" : "Ctrl+Enter to send"}</span>
        <UploadStatus />
        {compose.sendError.value !== null && (
          <span class="form-error" role="alert">
            {compose.sendError.value}
          </span>
        )}
        <button type="submit" class="button-primary" disabled={compose.sending.value || uploading || compose.content.value.trim() === ""}>
          Send
        </button>
        <SendLater />
      </div>
      <ScheduledNotice />
    </form>
  );
}

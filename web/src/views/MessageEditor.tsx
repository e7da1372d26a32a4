/**
 * Editing a message in place: its Markdown source (GET /messages/{id}, raw content) in a text
 * box labelled "Edit message", and its topic when the user may change it; "Save" sends
 * PATCH /messages/{id} with what changed (a topic change moves this and later messages, as
 * Zulip web's default). The new content arrives as an update_message event.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../api/types.ts";
import { errorText } from "../state/errors.ts";
import { editMessage, rawContent, type MessageEdit } from "../state/message-changes.ts";
import { canEditContent, canEditTopic } from "../state/message-rules.ts";
import { me, settings } from "../state/store.ts";

/** The editor; `onDone` closes it. */
export function MessageEditor({ message, onDone }: { message: Message; onDone: () => void }) {
  const myId = me.value?.user_id ?? 0;
  const contentEditable = canEditContent(message, myId);
  const topicEditable = canEditTopic(message, myId);
  const [raw, setRaw] = useState<string | null>(null);
  const [text, setText] = useState("");
  const [topic, setTopic] = useState(message.subject);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    let live = true;
    rawContent(message.id).then(
      (source) => {
        if (!live) return;
        setRaw(source);
        setText(source);
      },
      (err: unknown) => live && setError(errorText(err, "Could not load the message.")),
    );
    return () => {
      live = false;
    };
  }, [message.id]);
  useEffect(() => {
    if (raw !== null) box.current?.focus();
  }, [raw]);
  const save = async () => {
    const params: MessageEdit = {};
    if (contentEditable && raw !== null && text !== raw) params.content = text;
    if (topicEditable && topic.trim() !== message.subject) {
      params.topic = topic.trim();
      params.propagate_mode = "change_later";
    }
    if (Object.keys(params).length === 0) return onDone();
    setSaving(true);
    setError(null);
    try {
      await editMessage(message.id, params);
      onDone();
    } catch (err) {
      setError(errorText(err, "Could not save the message."));
      setSaving(false);
    }
  };
  const onKeyDown = (e: KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === "Escape") {
      e.preventDefault();
      onDone();
    } else if (e.key === "Enter" && !e.isComposing && e.target instanceof HTMLTextAreaElement) {
      const sends = settings.value.enter_sends ? !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey : e.ctrlKey || e.metaKey;
      if (!sends) return;
      e.preventDefault();
      void save();
    }
  };
  return (
    <form
      class="message-editor"
      aria-label="Edit message"
      onKeyDown={onKeyDown}
      onClick={(e) => e.stopPropagation()}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {topicEditable && <input class="edit-topic" aria-label="Edit topic" placeholder="general chat" value={topic} maxLength={60} onInput={(e) => setTopic(e.currentTarget.value)} />}
      {contentEditable && (
        <textarea ref={box} class="edit-text" aria-label="Edit message" rows={4} disabled={raw === null} value={raw === null ? "Loading…" : text} onInput={(e) => setText(e.currentTarget.value)} />
      )}
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="editor-buttons">
        <button type="button" class="button-quiet" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" class="button-primary" disabled={saving || (contentEditable && raw === null)}>
          Save
        </button>
      </div>
    </form>
  );
}

/**
 * The dialogs the message actions menu opens (state/message-menu.ts `messageDialog`), one at a
 * time over the feed: the message's Markdown source, its edit history (each version with its
 * content, topic and channel changes, who and when), its read receipts, moving messages
 * (MoveMessages.tsx), and a link to copy by hand where the clipboard refused it; and the short
 * notice the menus show ("Copied link to message", a refused change).
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { HistorySnapshot } from "../api/message-actions.ts";
import type { Message } from "../api/types.ts";
import { rawContent } from "../state/message-changes.ts";
import { editHistory, messageDialog, notice, readerNames } from "../state/message-menu.ts";
import { streamName, userName } from "../state/store.ts";
import { ActionStatus, useLoad } from "./forms/action.tsx";
import { Modal } from "./forms/Modal.tsx";
import { fullTime, withEmojiGlyphs } from "./format.ts";
import { MoveDialog } from "./MoveMessages.tsx";
import "./MessageDialogs.css";

function close(): void {
  messageDialog.value = null;
}

/** A dialog showing what `load` fetches (its error, if it fails), drawn by `children`. */
function LoadedDialog<T>({ id, title, load, children }: { id: string; title: string; load: () => Promise<T>; children: (data: T) => ComponentChildren }) {
  const [data, setData] = useState<{ value: T } | null>(null);
  const action = useLoad(async () => setData({ value: await load() }));
  return (
    <Modal titleId={id} title={title} class="message-dialog" onClose={close}>
      <ActionStatus action={action} />
      {data !== null && children(data.value)}
    </Modal>
  );
}

function SourceDialog({ message }: { message: Message }) {
  return (
    <LoadedDialog id="source-title" title="Message source" load={() => rawContent(message.id)}>
      {(source) => (
        <pre class="message-source" aria-label="Markdown source">
          {source}
        </pre>
      )}
    </LoadedDialog>
  );
}

/** What one version changed, in words: the first is the original; later ones were edited, moved, or both. */
function versionTitle(v: HistorySnapshot, first: boolean): string {
  const who = v.user_id === null ? "" : ` by ${userName(v.user_id)}`;
  if (first) return `Original message${who}`;
  const edited = v.prev_content !== undefined;
  const moved = v.prev_topic !== undefined || v.prev_stream !== undefined;
  return `${edited && moved ? "Edited and moved" : moved ? "Moved" : "Edited"}${who}`;
}

function topicName(topic: string): string {
  return topic === "" ? "general chat" : topic;
}

function Version({ version, first }: { version: HistorySnapshot; first: boolean }) {
  const title = versionTitle(version, first);
  const showContent = first || version.prev_content !== undefined;
  return (
    <li class="history-version" aria-label={title}>
      <p class="history-title">
        <strong>{title}</strong> <time dateTime={new Date(version.timestamp * 1000).toISOString()}>{fullTime(version.timestamp)}</time>
      </p>
      {version.prev_stream !== undefined && version.stream !== undefined && (
        <p class="history-change">
          Channel: #{streamName(version.prev_stream)} → #{streamName(version.stream)}
        </p>
      )}
      {version.prev_topic !== undefined && (
        <p class="history-change">
          Topic: {topicName(version.prev_topic)} → {topicName(version.topic)}
        </p>
      )}
      {showContent && <div class="message-content rendered history-content" dangerouslySetInnerHTML={{ __html: withEmojiGlyphs(version.rendered_content) }} />}
    </li>
  );
}

function HistoryDialog({ message }: { message: Message }) {
  return (
    <LoadedDialog id="history-title" title="Message edit history" load={() => editHistory(message.id)}>
      {(versions) => (
        <ol class="history-list" aria-label="Versions">
          {versions.map((v, i) => (
            <Version key={`${v.timestamp}-${i}`} version={v} first={i === 0} />
          ))}
        </ol>
      )}
    </LoadedDialog>
  );
}

function Readers({ names }: { names: string[] }) {
  if (names.length === 0) return <p>No one has read this message yet.</p>;
  return (
    <>
      <p>
        This message has been read by {names.length} {names.length === 1 ? "person" : "people"}:
      </p>
      <ul class="receipts-list" aria-label="Read by">
        {names.map((name, i) => (
          <li key={`${name}-${i}`}>{name}</li>
        ))}
      </ul>
    </>
  );
}

function ReceiptsDialog({ message }: { message: Message }) {
  return (
    <LoadedDialog id="receipts-title" title="Read receipts" load={() => readerNames(message.id)}>
      {(names) => <Readers names={names} />}
    </LoadedDialog>
  );
}

function LinkDialog({ link }: { link: string }) {
  return (
    <Modal titleId="link-title" title="Link to message" class="message-dialog" onClose={close}>
      <label>
        Copy this link
        <input type="text" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
      </label>
    </Modal>
  );
}

/** The open dialog, if any, and the menus' notice. */
export function MessageDialogs() {
  const d = messageDialog.value;
  return (
    <>
      {d?.kind === "source" && <SourceDialog message={d.message} />}
      {d?.kind === "history" && <HistoryDialog message={d.message} />}
      {d?.kind === "receipts" && <ReceiptsDialog message={d.message} />}
      {d?.kind === "move" && <MoveDialog target={d.target} onClose={close} />}
      {d?.kind === "link" && <LinkDialog link={d.link} />}
      <div class="app-notice" role="status">
        {notice.value}
      </div>
    </>
  );
}

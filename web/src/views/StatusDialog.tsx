/**
 * Setting one's status, as upstream's dialog: an emoji (the emoji picker) and a message of up to
 * 60 characters, upstream's suggestions to fill both in one click, Save, and Clear status. Opened
 * from the user's own menu in the top bar (AccountMenu.tsx) and their own card; rendered once, by
 * the app. The new status arrives as a `user_status` event.
 */
import { signal } from "@preact/signals";
import { useState } from "preact/hooks";
import { spokenEmojiName, type EmojiChoice } from "../state/emoji.ts";
import { me } from "../state/store.ts";
import { clearOwnStatus, setOwnStatus, statusOf, STATUS_PRESETS, type StatusEmoji } from "../state/user-status.ts";
import { EmojiPicker } from "./EmojiPicker.tsx";
import { ActionStatus, Field, useAction } from "./forms/action.tsx";
import { Modal } from "./forms/Modal.tsx";
import { StatusGlyph } from "./StatusEmoji.tsx";
import "./UserCard.css";

/** The status message's limit, as the server's (in characters). */
const STATUS_TEXT_LIMIT = 60;

const open = signal(false);

/** Opens the dialog. */
export function openStatusDialog(): void {
  open.value = true;
}

function asStatusEmoji(e: EmojiChoice): StatusEmoji {
  return { emoji_name: e.name, emoji_code: e.emoji_code, reaction_type: e.reaction_type };
}

function Dialog({ onClose }: { onClose: () => void }) {
  const current = statusOf(me.value?.user_id ?? 0);
  const [text, setText] = useState(current?.text ?? "");
  const [emoji, setEmoji] = useState<StatusEmoji | null>(current?.emoji ?? null);
  const [picking, setPicking] = useState(false);
  const action = useAction();
  const finish = async (work: () => Promise<void>) => {
    if (await action.run(work)) onClose();
  };
  return (
    <Modal titleId="status-title" title="Set status" onClose={onClose} class="status-dialog">
      <form
        class="status-form"
        onSubmit={(e) => {
          e.preventDefault();
          void finish(() => setOwnStatus(text, emoji));
        }}
      >
        <div class="status-input" data-picker-scope>
          <Field label="Status message" value={text} onValue={setText} maxLength={STATUS_TEXT_LIMIT} />
          <button type="button" class="status-emoji-button" data-picker-toggle aria-haspopup="dialog" aria-expanded={picking} aria-label={emoji === null ? "Choose an emoji" : `Emoji: ${spokenEmojiName(emoji.emoji_name)}`} onClick={() => setPicking(!picking)}>
            {emoji === null ? <span aria-hidden="true">☺</span> : <StatusGlyph emoji={emoji} />}
          </button>
          {emoji !== null && (
            <button type="button" class="button-quiet" onClick={() => setEmoji(null)}>
              Remove emoji
            </button>
          )}
          {picking && (
            <EmojiPicker
              label="Status emoji"
              onPick={(e) => {
                setEmoji(asStatusEmoji(e));
                setPicking(false);
              }}
              onClose={() => setPicking(false)}
            />
          )}
        </div>
        <ul class="status-presets" aria-label="Suggestions">
          {STATUS_PRESETS.map((p) => (
            <li key={p.text}>
              <button
                type="button"
                class="status-preset"
                onClick={() => {
                  setText(p.text);
                  setEmoji(p.emoji);
                }}
              >
                <span aria-hidden="true">
                  <StatusGlyph emoji={p.emoji} />
                </span>{" "}
                {p.text}
              </button>
            </li>
          ))}
        </ul>
        <ActionStatus action={action} />
        <div class="status-buttons">
          <button type="submit" class="button-primary" disabled={action.busy}>
            Save status
          </button>
          <button type="button" class="button-quiet" disabled={action.busy || current === undefined} onClick={() => void finish(clearOwnStatus)}>
            Clear status
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** The dialog while open (rendered once, by the app). */
export function StatusDialog() {
  if (!open.value) return null;
  return <Dialog onClose={() => (open.value = false)} />;
}

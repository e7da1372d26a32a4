/** Custom emoji, for everyone: the organization's emoji with their authors, adding one (where the organization allows), and deactivating one's own (administrators any). */
import { useRef, useState } from "preact/hooks";
import { addEmoji, canAddEmoji, canDeactivateEmoji, customEmoji, deactivateEmoji, loadCustomEmoji, type CustomEmoji } from "../../state/custom-emoji.ts";
import { userName } from "../../state/store.ts";
import { ActionStatus, Field, useAction, useLoad } from "../forms/action.tsx";
import { ConfirmButton } from "../forms/ConfirmButton.tsx";

function AddEmojiForm() {
  const [name, setName] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const added = name.trim();
    if (file === null) return;
    if (await action.run(() => addEmoji(added, file), `Emoji :${added}: added.`)) {
      setName("");
      setFile(null);
      if (fileInput.current) fileInput.current.value = "";
    }
  }
  return (
    <form class="settings-form" aria-labelledby="add-emoji-title" onSubmit={submit}>
      <h3 id="add-emoji-title">Add a custom emoji</h3>
      <Field label="Emoji name" required maxLength={60} value={name} onValue={setName} />
      <label>
        Emoji image
        <input ref={fileInput} type="file" accept="image/png,image/gif,image/jpeg,image/webp" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
      </label>
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy || name.trim() === "" || file === null}>
        Add emoji
      </button>
    </form>
  );
}

function EmojiRow({ emoji }: { emoji: CustomEmoji }) {
  return (
    <li>
      <div class="admin-row">
        <img class="emoji-img" src={emoji.url} alt="" />
        <span class="admin-name">:{emoji.name}:</span>
        <span class="admin-meta">{emoji.authorId === null ? "Author unknown" : `Added by ${userName(emoji.authorId)}`}</span>
        {canDeactivateEmoji(emoji) && (
          <ConfirmButton
            label={`Deactivate :${emoji.name}:`}
            question={`Deactivate :${emoji.name}:?`}
            detail="Messages that use it keep it; it can no longer be picked."
            confirmLabel="Yes, deactivate"
            run={() => deactivateEmoji(emoji.name)}
          />
        )}
      </div>
    </li>
  );
}

/** The screen. */
export function CustomEmojiScreen() {
  const loading = useLoad(loadCustomEmoji);
  const list = customEmoji.value;
  return (
    <>
      {canAddEmoji() && <AddEmojiForm />}
      <section class="settings-form" aria-labelledby="emoji-title">
        <h3 id="emoji-title">Custom emoji</h3>
        <ActionStatus action={loading} />
        {list.length === 0 ? (
          <p class="settings-note">No custom emoji yet.</p>
        ) : (
          <ul class="admin-list" aria-label="Custom emoji">
            {list.map((e) => (
              <EmojiRow key={e.id} emoji={e} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
